"""`python -m graphcell.cli ...` is the `graphcell` command."""
import sys

from . import main

sys.exit(main())
