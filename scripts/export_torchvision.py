#!/usr/bin/python3
"""Export torchvision models and decoder-only transformers as memplan graphs
(DESIGN.md 1.1); the code is the package scripts/torchexport/.

Inference (torchexport/inference.py): the module-level torch.fx graph, run
on the meta device.  Training (torchexport/training.py): the joint forward
and backward ATen graph of functorch's aot_module, optionally with the
optimizer step and kept gradients.  Sizes are numel x element size of the
real shapes; nothing is computed, so an export takes seconds.

What each node really runs is recorded (torchexport/dispatch.py): in-place
nodes are those whose ATen ops write the storage they alias (a residual
`out += identity` is add_, as eager runs it), `workspace` comes from the
backend's kernel table (torchexport/backend.py), `cost` from a roofline model
of a reference GPU (torchexport/cost.py), and --eager adds what eager
execution keeps alive (torchexport/eager.py).  graphs/README.md describes
the models and where each number comes from.

Usage:
  export_torchvision.py --model NAME --batch B --out FILE
        [--backend none|cpu-onednn] [--eager] [--no-cost]
  export_torchvision.py --model NAME --batch B --train [--optimizer sgd|momentum|adam]
        [--keep-grads] [--backend ...] --out FILE         (--sgd = --optimizer sgd)
  export_torchvision.py --model NAME --batch B --onnx FILE   (torch.onnx export)
  export_torchvision.py --all OUTDIR [--batches 1,32] [--train-batch 32] [--models a,b]
  export_torchvision.py --large OUTDIR      (gpt2_small and gpt2_48l training steps)

Models: the torchvision names of torchexport/models.py (MODELS) and the
transformers of torchexport/gpt.py (gpt2_small, gpt2_48l).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from torchexport.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(__doc__))
