"""`python -m incast` is the `incast` command."""

import sys

try:
    from incast.cli import main
except KeyboardInterrupt:  # Ctrl-C while still importing: exit as the command would.
    sys.exit(130)

sys.exit(main())
