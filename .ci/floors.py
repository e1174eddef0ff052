"""Print pip constraints pinning every dependency of the kit (its base and its `test` extra) at the
lowest release pyproject.toml declares it works with: `name>=X` becomes `name==X`. CI installs the kit
under them in an environment of its own and runs the floor tests there, so a floor is a release the
kit has been run with, not a guess."""
import re
import sys
import tomllib
from pathlib import Path

project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
for requirement in [*project["dependencies"], *project["optional-dependencies"]["test"]]:
    floor = re.fullmatch(r"\s*([A-Za-z0-9_.\-\[\]]+)\s*>=\s*([0-9][0-9A-Za-z.]*)\s*", requirement)
    if floor is None:
        sys.exit(f"pyproject.toml: {requirement!r} declares no floor (name>=version)")
    name = floor[1].split("[")[0]
    print(f"{name}=={floor[2]}")
