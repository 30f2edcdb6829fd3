"""Training-step graphs: the joint forward and backward ATen graph that
functorch's aot_module traces (functionalization off, so in-place ops stay
in place as eager PyTorch runs them), then optionally the optimizer step.

Inputs: x, labels and the incoming gradient of the loss.  Without an
optimizer the output node reads the loss and every parameter gradient (what
a step leaves behind for optimizer.step()).  Training state, as users run
it:

- keep_grads: the gradients outlive the step (torch 1.13's default
  zero_grad(set_to_none=False)).  Each is an `input` (it exists before the
  step) that the output node reads; eager's AccumulateGrad adds each new
  gradient into it in place (`add_`) right after the backward op that makes
  it, and the new gradient dies there.
- optimizer sgd / momentum / adam: torch.optim's own single-tensor step
  (SGD lr 0.1; momentum 0.9; Adam's defaults), run on the meta tensors after
  the backward pass, one node per ATen op it dispatches: parameter updates
  are in place on a parameter (alias -1), momentum buffers and Adam's two
  moments are `input`s updated in place and read by the output node (they
  live across the whole step), Adam's sqrt and division are temporaries.
  Adam's step counters (a 4-byte CPU tensor per parameter) are left out.
  The output node then reads the loss and the state; gradients not kept die
  at their last use in the step.

A parameter update must come after every node that reads the parameter's
data, but memplan's in-place edges cover arena storages only: for each such
reader that is no ancestor of the update (the matmul computing a linear
layer's input gradient reads the weight), a size-0 `after` node right after
the reader feeds the update."""
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from . import models
from .compat import eager_composites
from .dispatch import OpCall, storage_key
from .graph import GraphWriter, renumber
from .walk import walk

OPTIMIZERS = {
    "sgd": lambda ps: torch.optim.SGD(ps, lr=0.1),
    "momentum": lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9),
    "adam": lambda ps: torch.optim.Adam(ps),
}
STATE_KEYS = {"sgd": [], "momentum": ["momentum_buffer"], "adam": ["exp_avg", "exp_avg_sq"]}


class _Captured(Exception):
    pass


def capture_joint(model, args):
    """The joint forward+backward graph aot_module traces (not functionalized:
    in-place ops stay in place, as eager PyTorch runs them)."""
    from functorch.compile import aot_module
    from functorch._src import config as aot_config
    box = {}

    def partition(joint, joint_inputs):
        box["gm"] = joint
        box["inputs"] = joint_inputs
        raise _Captured()

    def nop(gm, inputs):  # never reached
        return gm

    old = aot_config.use_functionalize
    aot_config.use_functionalize = False
    try:
        compiled = aot_module(model, fw_compiler=nop, bw_compiler=nop, partition_fn=partition)
        try:
            with eager_composites():
                compiled(*args)
        except _Captured:
            pass
    finally:
        aot_config.use_functionalize = old
    if "gm" not in box:
        raise RuntimeError("aot_module did not reach the partitioner")
    return box["gm"], box["inputs"]


def variant_suffix(optimizer, keep_grads):
    return (("_" + optimizer) if optimizer else "") + ("_keepgrad" if keep_grads else "")


def describe(optimizer, keep_grads):
    parts = []
    if keep_grads:
        parts.append("gradients kept between steps (inputs, accumulated in place)")
    if optimizer:
        parts.append({"sgd": "torch.optim.SGD step (lr 0.1)",
                      "momentum": "torch.optim.SGD step with momentum 0.9 (buffers as inputs)",
                      "adam": "torch.optim.Adam step (both moments as inputs)"}[optimizer]
                     + ", one node per ATen op, after the backward pass")
    return "; ".join(parts)


def train_graph(name, batch, backend, optimizer=None, keep_grads=False):
    """(graph dict, GraphWriter) of one training step of `name`."""
    model = models.build_model(name).train()
    pb, bb = models.count_params(model)
    # not .to("meta"): it would untie shared parameters (GPT's LM head)
    sig = models.param_signature(model)
    wrapper = models.to_meta(models.TrainWrapper(model, name))
    models.check_params(sig, wrapper, name)
    x, labels = models.example_inputs(name, batch, train=True)
    joint, (primals, tangents) = capture_joint(wrapper, (x, labels))
    kinds = _primal_kinds(wrapper, primals, tangents)
    state = describe(optimizer, keep_grads)
    src = ("%s training step %s, cross-entropy loss%s; joint forward+backward ATen graph "
           "from functorch aot_module (not functionalized), shapes on the meta device; "
           "kernel workspace: %s%s"
           % (models.model_desc(name), models.input_desc(name, batch),
              " (+aux heads)" if name in ("googlenet", "inception_v3") else "",
              backend.name, "; " + state if state else ""))
    stem = "%s_train%s_b%d" % (name, variant_suffix(optimizer, keep_grads), batch)
    gw = GraphWriter(stem, src)
    gw.register_params([(n[len("model."):], t) for n, t in wrapper.named_parameters()] +
                       [(n[len("model."):], t) for n, t in wrapper.named_buffers()])
    step = _Step(gw, joint, kinds, tangents, keep_grads)
    # The joint graph already holds every op of the step, the saved copies
    # included; with grad mode on, autograd would add its own clone of the
    # input inside in-place ops such as silu_ (a spurious workspace and cost).
    with torch.no_grad():
        walk(joint, gw, (list(primals), list(tangents)), step.placeholder_kind, step.after_node)
    step.name_inputs()
    extra = {"n_param_grads": len(step.grad_refs)}
    if optimizer:
        state_refs = run_optimizer(gw, wrapper, optimizer, step)
        gw.emit_output(step.fw_refs + step.kept_refs() + state_refs)
    else:
        gw.emit_output(step.fw_refs + step.kept_refs() +
                       ([] if keep_grads else [r for r, _ in step.grad_refs]))
    return gw, pb, bb, extra, step


def _primal_kinds(wrapper, primals, tangents):
    """("param" | "buffer", name) or ("input", None) for each joint input."""
    names = {}
    for n, p in wrapper.named_parameters():
        names.setdefault(id(p), ("param", n[len("model."):]))
    for n, b in wrapper.named_buffers():
        names.setdefault(id(b), ("buffer", n[len("model."):]))
    kinds = [names.get(id(t), ("input", None)) for t in primals]
    return kinds + [("input", None)] * len(tangents)


class _Step:
    """What the walk of the joint graph needs to know about its inputs and
    outputs, and gradient accumulation (keep_grads)."""

    def __init__(self, gw, joint, kinds, tangents, keep_grads):
        self.gw, self.joint, self.kinds = gw, joint, kinds
        out_node = [n for n in joint.graph.nodes if n.op == "output"][0]
        flat = list(out_node.args[0])
        if len(flat) == 2 and isinstance(flat[1], (list, tuple)):
            self.fw_outs, grads = flat
        else:  # make_fx flattened (outs, grads)
            self.fw_outs, grads = flat[:len(tangents)], flat[len(tangents):]
        self.grad_of = {}  # fx node -> parameter name
        for k, g in enumerate(grads):
            if isinstance(g, torch.fx.Node) and kinds[k][0] == "param":
                self.grad_of.setdefault(g, kinds[k][1])
        self.keep_grads = keep_grads
        self.grad_refs = []   # (ref of the gradient as the step leaves it, param name)
        self.grad_value = {}  # param name -> meta tensor of that gradient
        self.kept = {}        # param name -> input node id of the kept gradient
        self.fw_refs = []

    def placeholder_kind(self, i, n, r):
        k, pname = self.kinds[i]
        return pname if k in ("param", "buffer") else None

    def after_node(self, fx_node, mid):
        pname = self.grad_of.get(fx_node)
        if pname is None:
            return
        gw = self.gw
        gw.nodes[mid].setdefault("grad_of", pname)
        value = gw.tensors[mid][0][1]
        if not self.keep_grads:
            self.grad_refs.append((mid, pname))
            self.grad_value[pname] = value
            return
        # AccumulateGrad: kept += new, in place, right after the new gradient
        kept = torch.empty(value.shape, dtype=value.dtype, device="meta")
        kid = gw.add_input("grad_" + pname.replace(".", "_"), kept)
        self.kept[pname] = kid
        with OpEmitter(gw, "accumulate_" + pname.replace(".", "_")):
            kept.add_(value)
        self.grad_refs.append((gw.latest[storage_key(kept)], pname))
        self.grad_value[pname] = kept

    def kept_refs(self):
        return list(self.kept.values())

    def name_inputs(self):
        gw = self.gw
        user = [n for n in self.joint.graph.nodes if n.op == "placeholder" and n in gw.fx2id]
        for n, nm in zip(user, ["x", "labels", "loss_grad"]):
            gw.nodes[gw.fx2id[n]]["name"] = nm
        self.fw_refs = [r for r in (gw.ref_of(a) for a in self.fw_outs
                                    if isinstance(a, torch.fx.Node)) if r is not None]


class OpEmitter(TorchDispatchMode):
    """Emits one graph node per ATen op run on meta tensors (ops on CPU
    tensors only, such as Adam's step counters, are left out)."""

    def __init__(self, gw, prefix):
        super().__init__()
        self.gw = gw
        self.prefix = prefix

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        ins = [t for t in tree_flatten((args, kwargs))[0] if isinstance(t, torch.Tensor)]
        outs = [t for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor)]
        if not any(t.device.type == "meta" for t in ins + outs):
            return out
        known = set(storage_key(t) for t in ins) | set(self.gw.param_storage)
        own, seen = 0, set()
        for t in outs:
            k = storage_key(t)
            if k not in known and k not in seen and k not in self.gw.latest:
                seen.add(k)
                own += t.storage().nbytes()
        call = OpCall(func, args, kwargs, out, 0, own)
        self.gw.emit_op("%s_%s" % (self.prefix, call.packet), call, out, ins, own)
        return out


def run_optimizer(gw, wrapper, optimizer, step):
    """optimizer.step() on the meta parameters, gradients and state; returns
    the state's input nodes."""
    params = [(n[len("model."):], p) for n, p in wrapper.named_parameters()]
    opt = OPTIMIZERS[optimizer]([p for _, p in params])
    state_refs = []
    for pname, p in params:
        g = step.grad_value.get(pname)
        if g is None:
            continue
        p.grad = g
        st = opt.state[p]
        if optimizer == "adam":
            st["step"] = torch.tensor(1.0)
        for key in STATE_KEYS[optimizer]:
            t = torch.empty(p.shape, dtype=p.dtype, device="meta")
            st[key] = t
            state_refs.append(gw.add_input("%s_%s" % (key, pname.replace(".", "_")), t))
    first = len(gw.nodes)
    with torch.no_grad():
        for pname, p in params:  # one parameter at a time: nodes named after it
            if p.grad is None:
                continue
            group = dict(opt.param_groups[0])
            sub = type(opt)([p], **{k: v for k, v in group.items() if k != "params"})
            sub.state[p] = opt.state[p]
            with OpEmitter(gw, "%s_%s" % (optimizer, pname.replace(".", "_"))):
                sub.step()
    for n in gw.nodes[first:]:
        n["phase"] = "opt"
    return state_refs


def add_update_tokens(gw):
    """The `after` tokens of the module docstring.  Returns how many."""
    nodes = gw.nodes

    def src(r):
        return r if isinstance(r, int) else r[0]

    preds = {n["id"]: [src(r) for r in n["inputs"]] for n in nodes}
    readers = {}
    for n in nodes:
        if ("alias" in n and not n.get("inplace")) or n.get("phase") == "opt":
            continue  # a pure view reads no data; updates order among themselves
        for q in n.get("params", ()):
            readers.setdefault(q, []).append(n["id"])
    tokens = {}
    for u in nodes:
        if not (u.get("alias") == -1 and u.get("inplace") and u.get("phase") == "opt"):
            continue
        anc, stack = {u["id"]}, [u["id"]]
        while stack:
            for w in preds[stack.pop()]:
                if w not in anc:
                    anc.add(w)
                    stack.append(w)
        for q in u.get("params", ()):
            for r in readers.get(q, ()):
                if r in anc:
                    continue
                if r not in tokens:
                    tokens[r] = _token(nodes[r])
                if tokens[r] not in u.setdefault("_deps", []):
                    u["_deps"].append(tokens[r])
    order = []
    for n in nodes:
        order.append(n)
        if n["id"] in tokens:
            order.append(tokens[n["id"]])
    deps = [(u, u.pop("_deps")) for u in nodes if "_deps" in u]
    renumber(nodes, order)
    for u, ds in deps:
        u["inputs"] += [d["id"] for d in ds]
    return len(tokens)


def _token(rn):
    """A size-0 node reading reader rn (a free output of it if it has one)."""
    if "outputs" in rn:
        outs = rn["outputs"]
        k = min(range(len(outs)), key=lambda i: (outs[i] > 0, outs[i]))
        ref = [rn["id"], k]
    else:
        ref = rn["id"]
    return {"name": "after_" + rn["name"], "op": "after", "size": 0, "inputs": [ref],
            "cost": 0, "phase": rn.get("phase", "bwd")}
