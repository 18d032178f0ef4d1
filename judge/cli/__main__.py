"""`python -m judge.cli …`: the same as the `judge` command."""

import sys

from judge.cli import main

sys.exit(main())
