"""`python -m graphcell ...` is the `graphcell` command (as `python -m graphcell.cli`)."""
import sys

from .cli import main

sys.exit(main())
