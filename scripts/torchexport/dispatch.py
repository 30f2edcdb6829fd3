"""What one graph node really runs: the ATen ops it dispatches, recorded by a
TorchDispatchMode while the node executes on the meta device.

Each op becomes an OpCall: its name, the metadata of its tensor arguments and
results (shape, strides, dtype, bytes, storage identity), its other arguments,
the storages its schema says it writes, and the bytes of temporaries the node
has allocated and not yet freed when the op runs.  The records drive three
things: in-place detection (a node is in place when an op it ran wrote the
storage its result aliases), the kernel workspace of backend.py and the cost
model of cost.py.  No tensor is kept: the records hold metadata only, so
temporaries die when the model's code drops them, as in eager execution."""
import weakref

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten


def storage_key(t):
    """Identity of the storage behind tensor t (meta tensors have one too)."""
    return t.storage()._cdata


def tbytes(t):
    return int(t.numel()) * int(t.element_size())


class TensorMeta:
    """What the workspace and cost models need to know about a tensor."""
    __slots__ = ("shape", "stride", "dtype", "itemsize", "numel", "nbytes", "key",
                 "contiguous")

    def __init__(self, t):
        self.shape = tuple(int(s) for s in t.shape)
        self.stride = tuple(int(s) for s in t.stride())
        self.dtype = str(t.dtype).replace("torch.", "")
        self.itemsize = int(t.element_size())
        self.numel = int(t.numel())
        self.nbytes = self.numel * self.itemsize
        self.key = storage_key(t)
        self.contiguous = bool(t.is_contiguous())

    def __repr__(self):
        return "T%s" % (list(self.shape),)


def to_meta(x):
    if isinstance(x, torch.Tensor):
        return TensorMeta(x)
    if isinstance(x, (list, tuple)):
        return type(x)(to_meta(v) for v in x)
    return x


def tensors_in(x):
    return [v for v in tree_flatten(x)[0] if isinstance(v, TensorMeta)]


class OpCall:
    """One dispatched ATen op."""
    __slots__ = ("name", "packet", "args", "kwargs", "outs", "written", "live_before",
                 "new_bytes")

    def __init__(self, func, args, kwargs, out, live_before, new_bytes):
        self.name = str(func)                       # aten.convolution.default
        self.packet = func.overloadpacket.__name__  # convolution
        self.args = to_meta(tuple(args))
        self.kwargs = {k: to_meta(v) for k, v in (kwargs or {}).items()}
        self.outs = tensors_in(to_meta(out))
        self.live_before = live_before  # node temporaries alive when the op starts
        self.new_bytes = new_bytes      # bytes of new storages among its results
        self.written = set()
        schema = func._schema
        flat = list(args) + [(kwargs or {}).get(a.name) for a in schema.arguments[len(args):]]
        for a, v in zip(schema.arguments, flat):
            if a.alias_info is not None and a.alias_info.is_write:
                for t in tree_flatten(v)[0]:
                    if isinstance(t, torch.Tensor):
                        self.written.add(storage_key(t))

    def tensor_args(self):
        return tensors_in(self.args) + tensors_in(self.kwargs)

    def __repr__(self):
        return "%s%s" % (self.name, self.tensor_args())


class NodeRecorder(TorchDispatchMode):
    """Records the ops of one node at a time and the temporaries they make.

    `known` holds the storages that exist outside the node (graph tensors,
    parameters): only new storages count as temporaries.  A temporary is
    released when the last tensor on its storage dies (weakref finalizers)."""

    def __init__(self):
        super().__init__()
        self.known = set()
        self.ops = []
        self._count = {}
        self._nbytes = {}
        self.live = 0
        self._epoch = 0

    def start(self):
        self.ops = []
        self._count = {}
        self._nbytes = {}
        self.live = 0
        self._epoch += 1

    def _release(self, epoch, key):
        if epoch != self._epoch or key not in self._count:
            return  # a tensor of an earlier node: no longer tracked
        self._count[key] -= 1
        if self._count[key] == 0:
            del self._count[key]
            self.live -= self._nbytes.pop(key)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        before = self.live
        new = 0
        for t in tree_flatten(out)[0]:
            if not isinstance(t, torch.Tensor):
                continue
            key = storage_key(t)
            if key in self.known:
                continue
            if key not in self._count:
                nb = t.storage().nbytes()
                self._count[key] = 0
                self._nbytes[key] = nb
                self.live += nb
                new += nb
            self._count[key] += 1
            weakref.finalize(t, self._release, self._epoch, key)
        self.ops.append(OpCall(func, args, kwargs, out, before, new))
        return out

    def finish(self, result):
        """The node's ops, and the bytes of the new storages its result holds."""
        own, seen = 0, set()
        for t in tree_flatten(result)[0]:
            if isinstance(t, torch.Tensor):
                key = storage_key(t)
                if key not in self.known and key not in seen:
                    seen.add(key)
                    own += t.storage().nbytes()
                self.known.add(key)
        ops = self.ops
        self.start()
        return ops, own
