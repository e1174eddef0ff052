"""Check the report of the README's first command: `python .ci/check_report.py REPORT_DIR PRODUCT`. Exits 1
with one line naming what is wrong: results.json missing or not CONFORMANT, a run of the checkout rather
than of the installed release, or the product's HTML page missing or without its verdict."""
import json
import sys
from pathlib import Path

folder, product = Path(sys.argv[1]), sys.argv[2]
try:
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
except (OSError, ValueError) as exc:
    sys.exit(f"{folder / 'results.json'}: {exc}")
page = folder / f"report-{product}.html"
problems = [
    f"verdict {results.get('verdict')!r}, not CONFORMANT" if results.get("verdict") != "CONFORMANT" else "",
    f"kit version {results['kit']['version']!r} is a source checkout's" if "+source" in results["kit"]["version"] else "",
    f"{page} missing" if not page.is_file() else "",
    f"{page} does not say CONFORMANT" if page.is_file() and "CONFORMANT" not in page.read_text("utf-8") else "",
    f"{product} not among the products {results.get('products')}" if product not in results.get("products", []) else "",
]
problems = [p for p in problems if p]
if problems:
    sys.exit(f"{folder}: " + "; ".join(problems))
print(f"{folder}: CONFORMANT on {product} ({sum(results['totals'].values())} calls), kit {results['kit']['version']}, "
      f"{page.name} written")
