"""``python -m numtorch SCRIPT [ARGS]``: run a PyTorch script on numtorch."""
import sys

from numtorch._cli import main

if __name__ == "__main__":
    sys.exit(main())
