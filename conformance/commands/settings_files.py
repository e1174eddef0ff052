"""Where a project keeps the command's settings (conformance/commands/config.py): read as the command begins
(conformance/commands/launch.py) as well as when its options are parsed."""

OWN_FILE, PYPROJECT, TABLE = "ascend-conformance.toml", "pyproject.toml", "ascend-conformance"
