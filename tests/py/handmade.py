"""Hand-made graphs for design_compare.py: the corners of DESIGN 1.1-1.2 (views of views,
tuples, dead values, output nodes, in-place writers, alias -1, workspaces, inputs, zero
sizes, the empty graph) and malformed files (1.1's errors)."""

import json
import os


def N(i, op="op", size=None, inputs=(), **kw):
    d = {"id": i, "name": f"n{i}", "op": op, "inputs": list(inputs)}
    if size is not None:
        d["size"] = size
    d.update(kw)
    return d


GRAPHS = {
    "empty": [],
    "only_input": [N(0, "input", 1000)],
    "views_of_views": [
        N(0, "input", 640), N(1, size=1280, inputs=[0]), N(2, "view", 1280, [1], alias=1),
        N(3, "view", 1280, [2], alias=2), N(4, size=64, inputs=[3]), N(5, size=128, inputs=[4]),
        N(6, size=64, inputs=[5, 1])],
    "tuple_getitem": [
        N(0, "input", 100), N(1, outputs=[300, 500, 700], inputs=[0], workspace=50),
        N(2, "getitem", 300, [[1, 0]], alias=[1, 0]), N(3, size=200, inputs=[2]),
        N(4, size=100, inputs=[[1, 2], 3]), N(5, "output", 0, [4])],
    "tuple_whole_read": [
        N(0, "input", 64), N(1, outputs=[128, 256], inputs=[0]), N(2, size=64, inputs=[1]),
        N(3, outputs=[64, 0, 32], inputs=[2]), N(4, size=16, inputs=[[3, 0]])],
    "dead_values_output_node": [
        N(0, "input", 100), N(1, "input", 5000), N(2, size=300, inputs=[0]),
        N(3, size=900, inputs=[0]), N(4, outputs=[40, 4000], inputs=[2]),
        N(5, size=20, inputs=[[4, 0]]), N(6, "output", 0, [5])],
    "dead_values_no_output_node": [
        N(0, "input", 100), N(1, "input", 5000), N(2, size=300, inputs=[0]),
        N(3, outputs=[40, 4000], inputs=[2]), N(4, size=20, inputs=[[3, 0]])],
    "inplace_edges": [
        N(0, "input", 256), N(1, size=1024, inputs=[0]), N(2, size=512, inputs=[1]),
        N(3, "relu_", 1024, [1], inplace=True, alias=1), N(4, size=512, inputs=[1]),
        N(5, "add_", 1024, [3, 2], inplace=True, alias=3), N(6, size=64, inputs=[5, 4])],
    "inplace_two_writers_view_reader": [
        N(0, "input", 256), N(1, size=2048, inputs=[0]), N(2, "view", 2048, [1], alias=1),
        N(3, size=128, inputs=[2]), N(4, "mul_", 2048, [2], inplace=True, alias=2),
        N(5, size=128, inputs=[1]), N(6, "add_", 2048, [4, 5], inplace=True, alias=4),
        N(7, size=64, inputs=[6, 3]), N(8, "output", 0, [7])],
    "alias_param": [
        N(0, "input", 64), N(1, "input", 64), N(2, size=256, inputs=[0]),
        N(3, "t", 4096, [1], alias=1), N(4, size=128, inputs=[2, 3]),
        N(5, "output", 0, [4])],
    "alias_minus1": [
        N(0, "input", 64), N(1, "weight", 4096, [], alias=-1), N(2, "t", 4096, [1], alias=1),
        N(3, size=256, inputs=[0, 2]), N(4, "sgd_", 4096, [1, 3], inplace=True, alias=1),
        N(5, size=32, inputs=[3, 2]), N(6, "output", 0, [5])],
    "workspace_zero_sizes": [
        N(0, "input", 0), N(1, size=0, inputs=[0], workspace=4096), N(2, size=512, inputs=[1]),
        N(3, outputs=[0, 64], inputs=[2], workspace=1), N(4, outputs=[], inputs=[[3, 1]]),
        N(5, size=8, inputs=[[3, 1], 2], workspace=100)],
    "input_late_and_unread": [
        N(1, size=300, inputs=[]), N(2, size=200, inputs=[1]), N(0, "input", 700),
        N(3, size=50, inputs=[2, 0]), N(4, "input", 900)],
    "input_unread_with_output": [
        N(0, "input", 100), N(1, "input", 9000), N(2, size=300, inputs=[0]),
        N(3, size=30, inputs=[2]), N(4, "output", 0, [3])],
    "inplace_on_input": [
        N(0, "input", 800), N(1, size=100, inputs=[0]), N(2, "add_", 800, [0], inplace=True,
                                                          alias=0),
        N(3, size=50, inputs=[2, 1])],
    "output_reads_view": [
        N(0, "input", 64), N(1, size=512, inputs=[0]), N(2, "view", 512, [1], alias=1),
        N(3, size=64, inputs=[1]), N(4, "output", 0, [2, 3])],
    "one_elem_outputs": [
        N(0, "input", 64), {"id": 1, "name": "n1", "op": "op", "outputs": [320], "inputs": [0]},
        N(2, size=64, inputs=[[1, 0]])],
    "read_twice": [
        N(0, "input", 64), N(1, size=128, inputs=[0, 0]), N(2, size=64, inputs=[1, 1, 0])],
    "ids_shuffled": [
        N(2, "input", 64), N(0, size=128, inputs=[2]), N(3, size=256, inputs=[0]),
        N(1, size=32, inputs=[3, 0])],
    "costs_bandwidth": [
        N(0, "input", 4000, cost=3), N(1, size=8000, inputs=[0], cost=2.5),
        N(2, size=8000, inputs=[1], cost=1), N(3, size=8000, inputs=[2]),
        N(4, size=100, inputs=[3], cost=0.5), N(5, size=8000, inputs=[4, 3], cost=2),
        N(6, size=8000, inputs=[5, 2], cost=2), N(7, size=8000, inputs=[6, 1], cost=2),
        N(8, "output", 0, [7])],
    "tuple_view_of_view_alias_j": [
        N(0, "input", 64), N(1, outputs=[128, 256], inputs=[0]),
        N(2, "getitem", 256, [[1, 1]], alias=[1, 1]), N(3, "view", 256, [2], alias=2),
        N(4, size=64, inputs=[3, [1, 0]])],
    "free_blocks_on_producer": [
        N(0, "input", 1000), N(1, size=1000, inputs=[], cost=10), N(2, size=10, inputs=[0]),
        N(3, "output", 0, [2])],
    "dead_input_late": [
        N(0, "input", 100), N(1, size=500, inputs=[0]), N(2, "input", 9000),
        N(3, size=10, inputs=[1]), N(4, "output", 0, [3])],
    "alias_tensor_vs_input": [
        N(0, "input", 64), N(1, outputs=[128, 256], inputs=[0]),
        N(2, "getitem", 128, [1], alias=[1, 0]), N(3, size=64, inputs=[0]),
        N(4, "view", 64, [[3, 0]], alias=3), N(5, size=32, inputs=[2, 4])],
    "output_reads_tuple_whole": [
        N(0, "input", 64), N(1, outputs=[128, 256, 0], inputs=[0]), N(2, size=64, inputs=[0]),
        N(3, "output", 0, [1, 2])],
    "no_output_node_read": [
        N(0, "input", 64), N(1, outputs=[], inputs=[0]), N(2, size=64, inputs=[1, 0])],
    "extra_keys": [
        dict(N(0, "input", 64), shape=[1, 16], dtype="float32", foo={"x": [1, 2]}),
        dict(N(1, size=128, inputs=[0]), param_bytes=5, phase="fwd", cost=2)],
    "inplace_chain_middle": [
        N(0, "input", 64), N(1, size=1024, inputs=[0]), N(2, "view", 1024, [1], alias=1),
        N(3, "view", 1024, [2], alias=2), N(4, size=64, inputs=[1]),
        N(5, "relu_", 1024, [2], inplace=True, alias=2), N(6, size=64, inputs=[3]),
        N(7, size=32, inputs=[5, 4, 6])],
    "huge_sizes": [
        N(0, "input", 2**62), N(1, size=2**62, inputs=[0]), N(2, size=64, inputs=[1, 0])],
    "view_without_outputs": [
        N(0, "input", 64), N(1, size=512, inputs=[0]), N(2, "view", None, [1], alias=1, outputs=[]),
        N(3, size=64, inputs=[0]), N(4, size=32, inputs=[2, 3])],
    "mult_output_nodes": [
        N(0, "input", 64), N(1, size=128, inputs=[0]), N(2, size=256, inputs=[1]),
        N(3, "output", 0, [1]), N(4, size=32, inputs=[2]), N(5, "output", 0, [4])],
}

BAD = {
    "bad_alias_not_input": [N(0, "input", 64), N(1, size=64, inputs=[0]),
                            N(2, "view", 64, [0], alias=1)],
    "bad_index": [N(0, "input", 64), N(1, outputs=[8, 8], inputs=[0]), N(2, size=8, inputs=[[1, 2]])],
    "bad_dup_id": [N(0, "input", 64), N(0, size=8, inputs=[])],
    "bad_not_topo": [N(0, "input", 64), N(1, size=8, inputs=[2]), N(2, size=8, inputs=[0])],
    "bad_fraction": [N(0, "input", 64.5)],
    "bad_negative": [N(0, "input", 64), N(1, size=8, inputs=[0], workspace=-1)],
    "bad_alias_j_tuple": [N(0, "input", 64), N(1, outputs=[8, 8], inputs=[0]),
                          N(2, "view", 8, [1], alias=1)],
    "bad_size_and_outputs": [N(0, "input", 64, outputs=[1])],
    "bad_id_range": [N(0, "input", 64), N(5, size=8, inputs=[0])],
    "bad_self_loop": [N(0, size=8, inputs=[0])],
    "bad_size_2p63": [N(0, "input", 2**63)],
    "bad_size_2p64": [N(0, "input", 2**64)],
    "bad_read_empty_outputs": [N(0, "input", 64), N(1, outputs=[], inputs=[0]),
                               N(2, size=8, inputs=[[1, 0]])],
}


def write_all(work, bad=False):
    paths = []
    for name, nodes in (BAD if bad else GRAPHS).items():
        p = os.path.join(work, f"hm_{name}.json")
        doc = {"name": name, "nodes": nodes}
        if name in ("costs_bandwidth", "inplace_edges"):
            doc["host_bandwidth"] = 4000
        if name == "free_blocks_on_producer":
            doc["host_bandwidth"] = 1000
        with open(p, "w") as f:
            json.dump(doc, f)
        paths.append(p)
    return paths


# ---------------------------------------------------------------- hand-written event plans
# (graph, plan name, events); "KEEPALL" is replaced by the judge's own keepall plan (6.2's
# last paragraph) of the given order.

EVENT_PLANS = [
    ("costs_bandwidth", "keepall", "KEEPALL"),
    ("costs_bandwidth", "offload", [
        ["run", 1], ["out", "1"], ["run", 2], ["free", "1"], ["run", 3], ["run", 4],
        ["run", 5], ["free", "4"], ["free", "3"], ["in", "1"], ["run", 6], ["free", "5"],
        ["free", "2"], ["run", 7], ["free", "6"], ["free", "1"], ["free", "0"], ["run", 8]]),
    ("costs_bandwidth", "offload_input_early", [
        ["out", "0"], ["run", 1], ["free", "0"], ["run", 2], ["run", 3], ["run", 4],
        ["run", 5], ["free", "4"], ["free", "3"], ["run", 6], ["free", "5"], ["free", "2"],
        ["run", 7], ["free", "6"], ["free", "1"], ["in", "0"], ["free", "0"], ["run", 8]]),
    ("costs_bandwidth", "offload_twice_in", [
        ["run", 1], ["out", "1"], ["free", "1"], ["in", "1"], ["run", 2], ["free", "1"],
        ["run", 3], ["run", 4], ["run", 5], ["free", "4"], ["free", "3"], ["in", "1"],
        ["run", 6], ["free", "5"], ["free", "2"], ["run", 7], ["free", "6"], ["free", "1"],
        ["run", 8]]),
    ("costs_bandwidth", "recompute", [
        ["run", 1], ["run", 2], ["run", 3], ["free", "2"], ["run", 4], ["run", 5],
        ["free", "4"], ["free", "3"], ["run", 2], ["run", 6], ["free", "5"], ["free", "2"],
        ["run", 7], ["free", "6"], ["free", "1"], ["run", 8]]),
    ("costs_bandwidth", "in_without_out", [
        ["run", 1], ["run", 2], ["free", "1"], ["in", "1"], ["run", 3], ["run", 4],
        ["run", 5], ["run", 6], ["run", 7], ["run", 8]]),
    ("costs_bandwidth", "output_freed", [
        ["run", 1], ["run", 2], ["run", 3], ["run", 4], ["run", 5], ["run", 6], ["run", 7],
        ["run", 8], ["free", "7"]]),
    ("costs_bandwidth", "run_input", [
        ["run", 0], ["run", 1], ["run", 2], ["run", 3], ["run", 4], ["run", 5], ["run", 6],
        ["run", 7], ["run", 8]]),
    ("costs_bandwidth", "run_input_after_free", [
        ["free", "0"], ["run", 0], ["run", 1], ["run", 2], ["run", 3], ["run", 4], ["run", 5],
        ["run", 6], ["run", 7], ["run", 8]]),
    ("costs_bandwidth", "no_frees", [
        ["run", 1], ["run", 2], ["run", 3], ["run", 4], ["run", 5], ["run", 6], ["run", 7],
        ["run", 8]]),
    ("costs_bandwidth", "resident_twice", [
        ["run", 1], ["run", 1], ["run", 2], ["run", 3], ["run", 4], ["run", 5], ["run", 6],
        ["run", 7], ["run", 8]]),
    ("costs_bandwidth", "first_runs_not_topo", [
        ["run", 1], ["run", 2], ["run", 3], ["free", "1"], ["run", 4], ["run", 5],
        ["run", 6], ["run", 1], ["run", 7], ["run", 8]]),
    ("costs_bandwidth", "output_node_early", [
        ["run", 1], ["run", 2], ["run", 3], ["run", 4], ["run", 5], ["run", 6], ["run", 7],
        ["run", 8], ["free", "6"], ["run", 6], ["free", "7"], ["run", 7]]),
    ("costs_bandwidth", "output_node_never_runs", [
        ["run", 1], ["run", 2], ["run", 3], ["run", 4], ["run", 5], ["run", 6], ["run", 7]]),
    ("costs_bandwidth", "name_j0", [
        ["run", 1], ["run", 2], ["free", "1:0"], ["run", 3], ["run", 4], ["run", 5],
        ["run", 6], ["run", 7], ["run", 8]]),
    ("workspace_zero_sizes", "free_ws", [
        ["run", 1], ["free", "ws:1"], ["run", 2], ["run", 3], ["run", 4], ["run", 5]]),
    ("costs_bandwidth", "offload_bw0", [
        ["run", 1], ["out", "1"], ["run", 2], ["free", "1"], ["run", 3], ["run", 4],
        ["run", 5], ["free", "4"], ["free", "3"], ["in", "1"], ["run", 6], ["free", "5"],
        ["free", "2"], ["run", 7], ["free", "6"], ["free", "1"], ["free", "0"], ["run", 8]]),
    ("dead_input_late", "keepall", "KEEPALL"),
    ("inplace_chain_middle", "keepall", "KEEPALL"),
    ("inplace_chain_middle", "rerun_reader_of_view", [
        ["run", 1], ["run", 2], ["run", 3], ["run", 4], ["run", 5], ["run", 6], ["free", "6"],
        ["run", 6], ["run", 7]]),
    ("free_blocks_on_producer", "keepall", "KEEPALL"),
    ("free_blocks_on_producer", "in_after_free_of_dead", [
        ["out", "0"], ["free", "0"], ["run", 1], ["free", "1"], ["in", "0"], ["run", 2],
        ["free", "0"], ["run", 3]]),
    ("free_blocks_on_producer", "out_while_producer_runs", [
        ["run", 1], ["out", "0"], ["free", "0"], ["in", "0"], ["run", 2], ["free", "1"],
        ["run", 3]]),
    ("inplace_edges", "keepall", "KEEPALL"),
    ("inplace_edges", "stale_rerun", [
        ["run", 1], ["run", 2], ["run", 3], ["free", "2"], ["run", 4], ["run", 2],
        ["run", 5], ["run", 6], ["free", "0"]]),
    ("inplace_edges", "rerun_writer", [
        ["run", 1], ["run", 2], ["run", 3], ["run", 4], ["run", 5], ["run", 3], ["run", 6]]),
    ("inplace_edges", "rerun_owner", [
        ["run", 1], ["run", 2], ["run", 3], ["run", 4], ["run", 5], ["run", 6], ["free", "1"],
        ["run", 1]]),
    ("inplace_edges", "out_inplace_storage", [
        ["run", 1], ["out", "1"], ["run", 2], ["run", 3], ["run", 4], ["run", 5], ["run", 6]]),
    ("inplace_edges", "offload_inplace_storage", [
        ["run", 1], ["run", 2], ["run", 3], ["run", 4], ["out", "1"], ["free", "1"],
        ["in", "1"], ["run", 5], ["run", 6]]),
    ("inplace_edges", "free_before_last_reader", [
        ["run", 1], ["run", 2], ["run", 3], ["run", 4], ["run", 5], ["out", "1"], ["free", "1"],
        ["in", "1"], ["run", 6]]),
    ("inplace_edges", "inplace_edge_broken", [
        ["run", 1], ["run", 2], ["run", 4], ["run", 3], ["run", 5], ["run", 6]]),
    ("inplace_two_writers_view_reader", "keepall", "KEEPALL"),
    ("alias_minus1", "keepall", "KEEPALL"),
    ("alias_minus1", "rerun_param_view", [
        ["run", 1], ["run", 2], ["run", 3], ["run", 4], ["run", 2], ["run", 5], ["run", 6]]),
    ("workspace_zero_sizes", "keepall", "KEEPALL"),
    ("workspace_zero_sizes", "rerun_ws", [
        ["run", 1], ["run", 2], ["run", 3], ["free", "3:1"], ["run", 3], ["run", 4], ["run", 5]]),
    ("tuple_getitem", "keepall", "KEEPALL"),
    ("tuple_getitem", "bad_name", [
        ["run", 1], ["free", "1"], ["run", 2], ["run", 3], ["run", 4], ["run", 5]]),
    ("tuple_getitem", "view_root_freed", [
        ["run", 1], ["run", 2], ["free", "1:0"], ["run", 3], ["run", 4], ["run", 5]]),
    ("input_unread_with_output", "keepall", "KEEPALL"),
    ("input_unread_with_output", "dead_input_freed_first", [
        ["free", "1"], ["run", 2], ["free", "0"], ["run", 3], ["free", "2"], ["run", 4]]),
    ("dead_values_output_node", "keepall", "KEEPALL"),
    ("one_elem_outputs", "keepall", "KEEPALL"),
    ("views_of_views", "keepall", "KEEPALL"),
    ("only_input", "keepall", "KEEPALL"),
    ("empty", "keepall", "KEEPALL"),
    ("inplace_on_input", "keepall", "KEEPALL"),
    ("input_late_and_unread", "keepall", "KEEPALL"),
]


# hand-written (order, offsets) plans: (graph, plan name, order or "GIVEN"); offsets: no reuse
ORDER_PLANS = [
    ("ids_shuffled", "input_last", [0, 3, 1, 2]),
    ("input_late_and_unread", "given", "GIVEN"),
    ("input_late_and_unread", "unread_input_first", [4, 1, 2, 0, 3]),
    ("inplace_edges", "inplace_edge_broken", [0, 1, 2, 4, 3, 5, 6]),
    ("inplace_edges", "reader_after_second_writer", [0, 1, 2, 3, 5, 4, 6]),
    ("inplace_chain_middle", "view_reader_before_writer", [0, 1, 2, 3, 4, 6, 5, 7]),
    ("inplace_two_writers_view_reader", "given", "GIVEN"),
    ("dead_input_late", "given", "GIVEN"),
    ("dead_input_late", "dead_input_first", [2, 0, 1, 3, 4]),
    ("alias_minus1", "param_reader_before_sgd", [0, 1, 2, 3, 5, 4, 6]),
    ("workspace_zero_sizes", "given", "GIVEN"),
    ("tuple_getitem", "given", "GIVEN"),
    ("huge_sizes", "given", "GIVEN"),
    ("empty", "given", "GIVEN"),
]
