"""Run the rulesdsl command: python -m rulesdsl."""

import sys

from .cli import main

sys.exit(main())
