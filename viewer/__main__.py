"""`python -m viewer`: the same as the `sgview` command."""

import sys

from viewer.cli.main import main

sys.exit(main())
