"""memplan's PyTorch exporter (see scripts/export_torchvision.py).

compat      fixes for torch 1.13 under Python 3.11, InplaceTracer
models      the models, their inputs and losses; gpt: the transformers
dispatch    the ATen ops a node runs (TorchDispatchMode records)
graph       memplan nodes from tensors and ops (aliasing from storages)
walk        an fx graph run node by node on the meta device
inference   module-level inference graphs
training    joint forward/backward graphs, optimizer steps, kept gradients
eager       what eager execution keeps alive (--eager) and the op check
backend     kernel workspace per backend (none, cpu-onednn)
cost        node costs on a reference device
annotate    workspace, cost and phase of every node
calibrate   per-op workspace measured on the CPU (validate_torch.py --ops)
cli         the command line
"""
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

from . import compat  # noqa: F401,E402  (importing it registers the fixes)
