"""Which packages the kit is made of: found, not listed. Every package under `oracle/` and `conformance/`,
and the top-level `specs/` folder (the vendor pages as data), shipped as the package data `oracle.specs`.
The project's metadata is in pyproject.toml."""
from setuptools import find_packages, setup

setup(packages=find_packages(include=["oracle", "oracle.*", "conformance", "conformance.*"]) + ["oracle.specs"],
      package_dir={"oracle.specs": "specs"})
