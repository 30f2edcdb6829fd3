"""The models the exporter knows: torchvision classifiers and segmentation
networks (random weights, weights=None: nothing is downloaded) and the
decoder-only transformers of gpt.py, with the loss a training step uses."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

from . import gpt

MODELS = [
    "resnet18", "resnet50", "googlenet", "inception_v3", "densenet121",
    "mobilenet_v2", "mobilenet_v3_large", "efficientnet_b0", "squeezenet1_0",
    "shufflenet_v2_x1_0", "regnet_y_400mf", "convnext_tiny", "vit_b_16",
    "swin_t", "fcn_resnet50",
]

SEGMENTATION = {"fcn_resnet50", "deeplabv3_resnet50", "lraspp_mobilenet_v3_large"}


def is_transformer(name):
    return name in gpt.CONFIGS


def image_size(name):
    if name == "inception_v3":
        return 299
    if name in SEGMENTATION:
        return 520  # torchvision's evaluation size for its segmentation weights
    return 224


def build_model(name):
    """The model with random weights (seeded: every call builds the same one)."""
    torch.manual_seed(0)
    if is_transformer(name):
        return gpt.GPT(gpt.CONFIGS[name])
    if name in SEGMENTATION:
        fn = getattr(torchvision.models.segmentation, name)
        return fn(weights=None, weights_backbone=None)
    fn = getattr(torchvision.models, name)
    kw = {"weights": None}
    if name in ("googlenet", "inception_v3"):
        kw["init_weights"] = False  # scipy-free init; values do not matter
    return fn(**kw)


def example_inputs(name, batch, device="meta", train=False):
    """The model's input and, for training, its labels."""
    if is_transformer(name):
        cfg = gpt.CONFIGS[name]
        tokens = _ints(cfg.vocab, (batch, cfg.seq), device)
        return tokens, _ints(cfg.vocab, (batch, cfg.seq), device)
    size = image_size(name)
    x = torch.empty(batch, 3, size, size, device=device)
    if device != "meta":
        x.normal_()
    if not train:
        return x, None
    shape = (batch, size, size) if name in SEGMENTATION else (batch,)
    classes = 21 if name in SEGMENTATION else 1000
    return x, _ints(classes, shape, device)


def _ints(high, shape, device):
    if device == "meta":
        return torch.empty(shape, dtype=torch.long, device="meta")
    return torch.randint(0, high, shape, device=device)


def input_desc(name, batch):
    if is_transformer(name):
        cfg = gpt.CONFIGS[name]
        return "batch=%d seq=%d int64 tokens" % (batch, cfg.seq)
    size = image_size(name)
    return "batch=%d input=%dx%d float32" % (batch, size, size)


def model_desc(name):
    if is_transformer(name):
        return gpt.describe(gpt.CONFIGS[name])
    return "torchvision %s (torchvision %s, torch %s)" % (
        name, torchvision.__version__, torch.__version__)


class TrainWrapper(nn.Module):
    """model + cross-entropy loss, as a training step computes it."""

    def __init__(self, model, name):
        super().__init__()
        self.model = model
        self.name = name

    def forward(self, x, labels):
        out = self.model(x)
        if isinstance(out, dict):  # segmentation: {"out": ..., "aux": ...}
            loss = F.cross_entropy(out["out"], labels)
            if out.get("aux") is not None:
                loss = loss + 0.5 * F.cross_entropy(out["aux"], labels)
            return loss
        if isinstance(out, tuple):  # InceptionOutputs / GoogLeNetOutputs
            logits = out[0]
            aux = [a for a in out[1:] if a is not None]
            loss = F.cross_entropy(logits, labels)
            w = 0.4 if self.name == "inception_v3" else 0.3
            for a in aux:
                loss = loss + w * F.cross_entropy(a, labels)
            return loss
        if out.dim() == 3:  # language model logits (B, T, V)
            return F.cross_entropy(out.flatten(0, 1), labels.flatten())
        return F.cross_entropy(out, labels)


def to_meta(module):
    """module.to("meta") that keeps shared parameters and buffers shared.

    Module._apply gives each module its own new Parameter when a tensor moves
    to another device, so a parameter two modules share (GPT's LM head tied
    to the token embedding) would become two parameters: two gradients, two
    optimizer states and two updates.  Every (module, name) that held one
    tensor before the move holds one tensor after it."""
    sites = {}  # id of the tensor before the move -> [(module, attribute, kind)]
    keep = []   # the tensors before the move, alive until the ids are no longer used
    for mod in module.modules():
        for kind in ("_parameters", "_buffers"):
            for k, t in getattr(mod, kind).items():
                if t is not None:
                    if id(t) not in sites:
                        keep.append(t)
                    sites.setdefault(id(t), []).append((mod, k, kind))
    module.to("meta")
    for group in sites.values():
        m0, k0, kind0 = group[0]
        t0 = getattr(m0, kind0)[k0]
        for m, k, kind in group[1:]:
            getattr(m, kind)[k] = t0
    del keep
    return module


def param_signature(module):
    """(parameter tensors, parameter elements, buffer tensors, buffer elements),
    each shared tensor counted once (as Module.parameters() yields it)."""
    ps, bs = list(module.parameters()), list(module.buffers())
    return (len(ps), sum(p.numel() for p in ps), len(bs), sum(b.numel() for b in bs))


def check_params(eager_sig, meta_module, what):
    """Raise when the exporter's module has other parameters or buffers than
    the eager model had (eager_sig: its param_signature): a tie lost in a
    device move would give a graph with a gradient, optimizer state and
    update too many."""
    sig = param_signature(meta_module)
    if sig != eager_sig:
        raise RuntimeError("%s: the exporter's module has %d parameter tensors of %d elements "
                           "and %d buffers of %d elements, the eager model %d of %d and %d of %d "
                           "(a shared parameter untied?)" % ((what,) + sig + eager_sig))


def count_params(model):
    pb = sum(p.numel() * p.element_size() for p in model.parameters())
    bb = sum(b.numel() * b.element_size() for b in model.buffers())
    return int(pb), int(bb)
