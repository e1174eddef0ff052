"""The pytest test module the CLI hands to pytest (and pytest-xdist): one test per cell."""
