import sys

from toollearn.cli.main import main

sys.exit(main())
