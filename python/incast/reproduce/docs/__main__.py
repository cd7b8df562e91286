"""`python -m incast.reproduce.docs`: see the package's docstring."""

import sys

from incast.reproduce.docs import main

sys.exit(main())
