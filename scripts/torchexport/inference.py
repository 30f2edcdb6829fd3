"""Inference graphs: the module-level torch.fx graph of a model in eval mode
under no_grad, run on the meta device (sizes are numel x element size of the
real shapes and dtypes; nothing is computed)."""
import copy

import torch

from . import annotate, compat, eager, models
from .graph import GraphWriter
from .walk import output_refs, walk


def inference_graph(name, batch, backend, with_eager=False):
    """(GraphWriter, param bytes, buffer bytes, extra graph keys) of `name`."""
    desc = "%s inference %s" % (models.model_desc(name), models.input_desc(name, batch))
    return module_graph(lambda: models.build_model(name),
                        lambda: models.example_inputs(name, batch)[0],
                        "%s_b%d" % (name, batch), desc, backend, with_eager)


def module_graph(make_model, make_input, stem, desc, backend, with_eager=False):
    """The inference graph of make_model() on make_input() (meta tensors).
    The fx walk and the eager run get their own copy of the model and input."""
    model = make_model().eval()
    # models.to_meta, not .to("meta"), which unties shared parameters; the
    # check is on the whole module (the fx graph drops modules eval leaves
    # unused, such as googlenet's auxiliary heads)
    sig = models.param_signature(model)
    ref = models.to_meta(copy.deepcopy(model))  # for the eager run (random init is slow)
    models.check_params(sig, ref, stem)
    pb, bb = models.count_params(model)
    gm = models.to_meta(compat.symbolic_trace(model))
    x = make_input()
    src = ("%s; torch.fx module-level graph (in-place operators as dispatched), shapes on "
           "the meta device; kernel workspace: %s%s"
           % (desc, backend.name, "; eager holds (the caller's input and each Python "
              "frame's locals, freed where eager execution frees them)" if with_eager else ""))
    gw = GraphWriter(stem, src)
    gw.gm = gm
    gw.register_params(list(gm.named_parameters()) + list(gm.named_buffers()))
    with torch.no_grad():  # inference: no autograd copies (e.g. before hardswish_)
        walk(gm, gw, (x,), lambda i, n, r: None)
    gw.emit_output(output_refs(gw, gm))
    annotate.workspace(gw, backend)
    annotate.costs(gw)
    # the eager run: the original module on meta tensors (the same ATen ops)
    x_eager = make_input()
    extra = {}
    if with_eager:
        holds, differ = eager.eager_holds(gw, ref, [x_eager], [x])
        extra["eager_holds"] = holds
    else:
        differ = eager.check_alignment(gw, ref, [x_eager])
    n_diff = sum(max(len(a), len(b)) for a, b in differ)
    if n_diff:
        gw.warnings.append("%d ATen ops differ from the eager run: %s"
                           % (n_diff, "; ".join("%s vs %s" % d for d in differ[:3])))
    return gw, pb, bb, extra
