"""Let llama.cpp's OpenMP threads sleep while waiting (the machine is shared); see
toollearn.engines.llama.quiet_openmp. Set before any test imports llama_cpp."""

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
