"""The example simulator in C (examples/c_sim) over the exec protocol: built with the system compiler
by its Makefile, certified CONFORMANT by the kit (data_move and data_copy_nz2nd on a product where both
exist; DataCopy and DataCopyPad on every product, every cell under the `ci` profile), and its planted-bug
variant caught. Skipped, saying why, where there is no C compiler or make."""
from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from oracle import load_rulebook
from tests.commands.test_cli import cli

SOURCES = Path(__file__).resolve().parents[2] / "examples" / "c_sim"
TOOLS = [t for t in ("make", "cc") if shutil.which(t) is None]
pytestmark = pytest.mark.skipif(bool(TOOLS), reason=f"no {' or '.join(TOOLS)} on this machine to build examples/c_sim")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A copy of the sources built by their Makefile (the checkout itself stays clean)."""
    folder = tmp_path_factory.mktemp("c_sim")
    for source in SOURCES.iterdir():
        if source.suffix in (".c", ".h") or source.name == "Makefile":
            shutil.copy(source, folder)
    done = subprocess.run(["make", "-C", str(folder)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (folder / "c_sim").is_file() and (folder / "c_sim_buggy").is_file()
    return folder


def test_certified_conformant(built, tmp_path):
    done = cli("certify", "--backend", f"exec:{built / 'c_sim'}", "--product", "ascend910b", "--api", "data_move",
               "--api", "data_copy_nz2nd", "--profile", "quick", "--bundle", "b", "-n", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    results = json.loads((tmp_path / "b" / "results.json").read_text())
    assert results["verdict"] == "CONFORMANT" and results["backend"]["name"] == "c-sim"
    kinds = {c["cell"]["api"] for c in results["cells"] if c["status"] == "ran"}
    assert kinds == {"data_move", "data_copy_nz2nd"} and results["calls"] > 1000


DATA_COPY_APIS = ("data_copy", "data_copy_pad", "data_copy_nd2nz", "data_copy_slice")


def test_data_copy_family_certified_on_every_product(built, tmp_path):
    """DataCopy (both forms) and DataCopyPad (both forms) under the `ci` profile on all seven products: on
    each product its spec supports every cell runs and passes (a call the spec leaves undefined aside), and
    on the others every call is refused by the product rule."""
    book = load_rulebook()
    supported = {api: set(book.api(api).rule(f"{api}.product.supported")["products"]) for api in DATA_COPY_APIS}
    products = [arg for p in book.products for arg in ("--product", p)]
    apis = [arg for api in DATA_COPY_APIS for arg in ("--api", api)]
    done = cli("certify", "--backend", f"exec:{built / 'c_sim'}", *products, *apis, "--profile", "ci",
               "--bundle", "b", "-n", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    results = json.loads((tmp_path / "b" / "results.json").read_text())
    assert results["verdict"] == "CONFORMANT" and results["profile"] == "ci" and not results["failures"]
    ran: dict[tuple[str, str], set[str]] = {}
    for cell in results["cells"]:
        c = cell["cell"]
        assert cell["status"] == "ran" and cell["error"] is None, cell["id"]
        # a legal or reject cell passes every call; an undefined cell (DataCopy's UB->UB overlap) has only
        # calls the spec leaves open
        want = {"UNDEFINED"} if c["kind"] == "undefined" else {"PASS"}
        assert set(cell["counts"]) == want, (cell["id"], cell["counts"])
        ran.setdefault((c["api"], c["product"]), set()).add(c["kind"])
    for api in DATA_COPY_APIS:
        forms = set(book.api(api).forms) or {None}
        for product in book.products:
            kinds = ran.get((api, product), set())
            if product in supported[api]:
                assert "legal" in kinds and "reject" in kinds, (api, product, kinds)
                legal_forms = {c["cell"]["form"] for c in results["cells"]
                               if c["cell"]["api"] == api and c["cell"]["product"] == product
                               and c["cell"]["kind"] == "legal"}
                assert legal_forms == forms, (api, product, legal_forms)
            else:
                cells = {c["cell"]["rule"] for c in results["cells"]
                         if c["cell"]["api"] == api and c["cell"]["product"] == product}
                assert cells == {f"{api}.product.supported"}, (api, product, cells)
    # every call of a reject cell is refused naming the cell's rule (the evidence: `<call> refused:<rule>`)
    with gzip.open(tmp_path / "b" / "evidence.jsonl.gz", "rt", encoding="utf-8") as f:
        evidence = [json.loads(line) for line in f]
    rejects = [e for e in evidence if "/reject/" in e["cell"]]
    assert rejects and all(entry.split(" ", 1)[1] == f"refused:{e['cell'].rsplit('/', 1)[1]}"
                           for e in rejects for entry in e["entries"])


def test_refuses_an_api_its_product_lacks(built, tmp_path):
    """On the inference AI Core data_copy_nz2nd exists and data_move too; on the 310B the page lists no
    data_copy_nz2nd: every call of it must be refused, and it is."""
    done = cli("run", "--backend", f"exec:{built / 'c_sim'}", "--product", "ascend310b", "--api", "data_copy_nz2nd",
               "--profile", "quick", "--report", "r", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    (cell,) = json.loads((tmp_path / "r" / "results.json").read_text())["cells"]
    assert cell["id"] == "data_copy_nz2nd/ascend310b/reject/data_copy_nz2nd.product.supported"
    assert cell["counts"] == {"PASS": 25}


def test_planted_bug_is_caught(built, tmp_path):
    done = cli("run", "--backend", f"exec:{built / 'c_sim_buggy'}", "--product", "ascend910b", "--api", "data_move",
               "--profile", "quick", "--seed", "1", "--report", "r", "-n", "2", cwd=tmp_path)
    assert done.returncode == 1 and "NOT CONFORMANT" in done.stdout, done.stdout[-3000:] + done.stderr
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    failures = results["failures"]
    assert failures and all(f["verdict"] in ("FAIL", "MISSED_REJECT", "FALSE_REJECT") for f in failures)
    replay = cli("replay", f"r/{failures[0]['reproducer']}", "--backend", f"exec:{built / 'c_sim_buggy'}",
                 cwd=tmp_path)
    assert replay.returncode == 1 and "STILL FAILING" in replay.stdout
    fixed = cli("replay", f"r/{failures[0]['reproducer']}", "--backend", f"exec:{built / 'c_sim'}", cwd=tmp_path)
    assert fixed.returncode == 0 and "FIXED" in fixed.stdout


def test_gather_copy_gatherb_certified(built, tmp_path):
    """Gather (its three forms), Copy (its two), their masks read by mask.c, and Gatherb, on the products of
    their pages and one with none of them."""
    done = cli("certify", "--backend", f"exec:{built / 'c_sim'}", "--api", "gather", "--api", "copy", "--api", "gatherb",
               "--product", "ascend910b",
               "--product", "ascend310b", "--product", "ascend310p-aicore", "--product", "ascend910",
               "--profile", "quick", "--bundle", "b", "-n", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    results = json.loads((tmp_path / "b" / "results.json").read_text())
    assert results["verdict"] == "CONFORMANT" and not results["failures"]
    forms = {(c["cell"]["api"], c["cell"]["form"]) for c in results["cells"] if c["cell"]["kind"] == "legal"}
    assert forms == {("gather", "count"), ("gather", "mask_bits"), ("gather", "mask_continuous"),
                     ("copy", "mask_bits"), ("copy", "mask_continuous"), ("gatherb", None)}
    assert {c["cell"]["rule"] for c in results["cells"] if c["cell"]["product"] == "ascend910"} == {
        "gather.product.supported", "copy.product.supported", "gatherb.product.supported"}
