#!/usr/bin/python3
"""Corner cases of DESIGN.md sections 1 and 6, each with figures worked out by
hand from DESIGN (not from memplan or memplan_ref.py), checked against the CLI:

  python3 tests/py/corners.py [--bin bin/memplan]

Graphs: `info` (buffers, edges, graph outputs, the bound between the per-node
need and the best order's peak), `solve --order given --place exact` (live
peak, optimal arena at align 64, fragmentation, reuse ratio, profile std-dev
of the hand-made profile M), `solve --remat keepall --budget-frac 1` (the
same live peak; duration = base_time with default costs).  Plans and event
plans: `verify` accepts exactly the valid ones, figures included.  CSV:
`solve --place exact` and `verify`.  Exit 1 naming every disagreement.
Where DESIGN leaves room the expectation follows README "Semantics
decisions" and says so.
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile


def G(name, nodes, **exp):
    return dict(name=name, nodes=nodes, exp=exp)


# Each graph: the lifetimes [birth, death] under the file order (closed
# steps; graph outputs to the last step, a dead value at its birth step, a
# graph input from step 0), M the live profile they give, the optimal arena at
# alignment 64, lb the range of a valid scheduling bound (the largest per-node
# need .. the lowest live peak over all orders, enumerated by hand), and the
# counts of `info` (in-place edges less the data edges among them, README).
GRAPHS = [
    # 0[0,2] 2[2,2]
    G('view_of_input_as_output', [{"id":0,"op":"input","inputs":[],"size":100},{"id":1,"op":"view","inputs":[0],"size":100,"alias":0},{"id":2,"op":"f","inputs":[0],"size":200}],
      M=[100, 100, 300], arena=328, lb=(300, 300), buffers=2, sum_sizes=300, data_edges=2,
      inplace_edges=0, graph_outputs=2, base_time=1),
    # 0[0,1] 1[1,5] 2[2,6] 5[5,6]
    G('inplace_chain', [{"id":0,"op":"input","inputs":[],"size":64},{"id":1,"op":"f","inputs":[0],"size":128},{"id":2,"op":"c","inputs":[1],"size":32},{"id":3,"op":"relu_","inputs":[1],"size":128,"alias":1,"inplace":True},{"id":4,"op":"add_","inputs":[3],"size":128,"alias":3,"inplace":True},{"id":5,"op":"d","inputs":[4],"size":256},{"id":6,"op":"output","inputs":[5,2],"size":0}],
      M=[64, 192, 160, 160, 160, 416, 288], arena=416, lb=(384, 416), buffers=4, sum_sizes=480, data_edges=7,
      inplace_edges=3, graph_outputs=2, base_time=3),
    # 0[0,4] 1[1,5] 3[3,5] 4[4,5]
    G('inplace_on_input', [{"id":0,"op":"input","inputs":[],"size":512},{"id":1,"op":"w","inputs":[0],"size":64},{"id":2,"op":"relu_","inputs":[0],"size":512,"alias":0,"inplace":True},{"id":3,"op":"y","inputs":[2],"size":128},{"id":4,"op":"z","inputs":[0],"size":256},{"id":5,"op":"output","inputs":[1,3,4],"size":0}],
      M=[512, 576, 576, 704, 960, 448], arena=960, lb=(768, 960), buffers=4, sum_sizes=960, data_edges=7,
      inplace_edges=2, graph_outputs=3, base_time=3),
    # 0[0,4] 2[2,5] 4[4,5]
    G('inplace_on_view', [{"id":0,"op":"a","inputs":[],"size":1000},{"id":1,"op":"view","inputs":[0],"size":1000,"alias":0},{"id":2,"op":"b_early","inputs":[0],"size":10},{"id":3,"op":"relu_","inputs":[1],"size":1000,"alias":1,"inplace":True},{"id":4,"op":"b","inputs":[0],"size":300},{"id":5,"op":"output","inputs":[4,2],"size":0}],
      M=[1000, 1000, 1010, 1010, 1310, 310], arena=1354, lb=(1300, 1310), buffers=3, sum_sizes=1310, data_edges=6,
      inplace_edges=2, graph_outputs=2, base_time=3),
    # 0[0,2] 1[1,2]
    G('inplace_on_graph_output', [{"id":0,"op":"a","inputs":[],"size":100},{"id":1,"op":"b","inputs":[0],"size":50},{"id":2,"op":"scale_","inputs":[0],"size":100,"alias":0,"inplace":True}],
      M=[100, 150, 150], arena=164, lb=(150, 150), buffers=2, sum_sizes=150, data_edges=2,
      inplace_edges=1, graph_outputs=2, base_time=2),
    # 0[0,1] ws:0[0,0] 1[1,2] ws:1[1,1] ws:2[2,2]
    G('workspace', [{"id":0,"op":"a","inputs":[],"size":100,"workspace":1000},{"id":1,"op":"b","inputs":[0],"size":200,"workspace":50},{"id":2,"op":"c","inputs":[1],"size":0,"workspace":7}],
      M=[1100, 350, 207], arena=1124, lb=(1100, 1100), buffers=5, sum_sizes=1357, data_edges=2,
      inplace_edges=0, graph_outputs=0, base_time=3),
    # 0[0,1] 1[1,3] 2[2,3]
    G('output_is_view', [{"id":0,"op":"input","inputs":[],"size":10},{"id":1,"op":"f","inputs":[0],"size":300},{"id":2,"op":"g","inputs":[1],"size":20},{"id":3,"op":"view","inputs":[1],"size":300,"alias":1}],
      M=[10, 310, 320, 320], arena=340, lb=(320, 320), buffers=3, sum_sizes=330, data_edges=3,
      inplace_edges=0, graph_outputs=2, base_time=2),
    # 0[0,3] 3[3,3]
    G('zero_size', [{"id":0,"op":"input","inputs":[],"size":100},{"id":1,"op":"size","inputs":[0],"size":0},{"id":2,"op":"f","inputs":[1],"size":0},{"id":3,"op":"h","inputs":[0],"size":50}],
      M=[100, 100, 100, 150], arena=164, lb=(150, 150), buffers=2, sum_sizes=150, data_edges=3,
      inplace_edges=0, graph_outputs=1, base_time=3),
    # 0[0,2] 1[1,3] 2[2,2] 3[3,4]
    G('never_read_with_output', [{"id":0,"op":"input","inputs":[],"size":100},{"id":1,"op":"f","inputs":[0],"size":1000},{"id":2,"op":"dead","inputs":[0],"size":700},{"id":3,"op":"h","inputs":[1],"size":50},{"id":4,"op":"output","inputs":[3],"size":0}],
      M=[100, 1100, 1800, 1050, 50], arena=1828, lb=(1100, 1100), buffers=4, sum_sizes=1850, data_edges=4,
      inplace_edges=0, graph_outputs=1, base_time=3),
    # 0[0,2] 2[2,3]
    G('no_outputs', [{"id":0,"op":"input","inputs":[],"size":100},{"id":1,"op":"sink","inputs":[0],"outputs":[]},{"id":2,"op":"f","inputs":[0],"size":40},{"id":3,"op":"print","inputs":[2],"outputs":[]}],
      M=[100, 100, 140, 40], arena=164, lb=(140, 140), buffers=2, sum_sizes=140, data_edges=3,
      inplace_edges=0, graph_outputs=0, base_time=3),
    # 0[0,4] 1[1,2] 2[2,3] 3[3,4] 4[4,4]
    G('input_consumed_last', [{"id":0,"op":"input","inputs":[],"size":1000},{"id":1,"op":"a","inputs":[],"size":10},{"id":2,"op":"b","inputs":[1],"size":20},{"id":3,"op":"c","inputs":[2],"size":30},{"id":4,"op":"d","inputs":[3,0],"size":5}],
      M=[1000, 1010, 1030, 1050, 1035], arena=1108, lb=(1035, 1050), buffers=5, sum_sizes=1065, data_edges=4,
      inplace_edges=0, graph_outputs=1, base_time=4),
    # 0[0,1] 1[1,2] 2[2,3]
    G('read_twice', [{"id":0,"op":"input","inputs":[],"size":100},{"id":1,"op":"a","inputs":[0],"size":200},{"id":2,"op":"mul","inputs":[1,1,[1,0]],"size":300},{"id":3,"op":"output","inputs":[2,2],"size":0}],
      M=[100, 300, 500, 300], arena=520, lb=(500, 500), buffers=3, sum_sizes=600, data_edges=3,
      inplace_edges=0, graph_outputs=1, base_time=2),
    # 0[0,1] 1[1,6] 4[4,6] 6[6,6]
    G('inplace_then_view', [{"id":0,"op":"input","inputs":[],"size":8},{"id":1,"op":"a","inputs":[0],"size":400},{"id":2,"op":"relu_","inputs":[1],"size":400,"alias":1,"inplace":True},{"id":3,"op":"view","inputs":[2],"size":400,"alias":2},{"id":4,"op":"b","inputs":[1],"size":100},{"id":5,"op":"mul_","inputs":[3],"size":400,"alias":3,"inplace":True},{"id":6,"op":"c","inputs":[3,4],"size":50}],
      M=[8, 408, 400, 400, 500, 500, 550], arena=592, lb=(550, 550), buffers=4, sum_sizes=558, data_edges=7,
      inplace_edges=5, graph_outputs=2, base_time=3),
    # 0[0,1] 1:0[1,3] 1:1[1,1] ws:1[1,1] 3[3,4]
    G('tuple_getitem_dead_element', [{"id":0,"op":"input","inputs":[],"size":64},{"id":1,"op":"pool","inputs":[0],"outputs":[800,1600],"workspace":4096},{"id":2,"op":"getitem","inputs":[[1,0]],"size":800,"alias":[1,0]},{"id":3,"op":"conv","inputs":[2],"size":128},{"id":4,"op":"output","inputs":[3],"size":0}],
      M=[64, 6560, 800, 928, 128], arena=6560, lb=(6560, 6560), buffers=5, sum_sizes=6688, data_edges=4,
      inplace_edges=0, graph_outputs=1, base_time=2),
    # 0[0,0] 1[0,2] 2[2,3]
    G('input_unread_with_output', [{"id":0,"op":"input","inputs":[],"size":5000},{"id":1,"op":"input","inputs":[],"size":100},{"id":2,"op":"f","inputs":[1],"size":10},{"id":3,"op":"output","inputs":[2],"size":0}],
      M=[5100, 100, 110, 10], arena=5128, lb=(5000, 5100), buffers=3, sum_sizes=5110, data_edges=2,
      inplace_edges=0, graph_outputs=1, base_time=1),
    # 0[0,2] 1[0,2] 2[2,2]
    G('input_unread_no_output', [{"id":0,"op":"input","inputs":[],"size":5000},{"id":1,"op":"input","inputs":[],"size":100},{"id":2,"op":"f","inputs":[1],"size":10}],
      M=[5100, 5100, 5110], arena=5192, lb=(5000, 5110), buffers=3, sum_sizes=5110, data_edges=1,
      inplace_edges=0, graph_outputs=2, base_time=1),
    # 0[0,1] 1:0[1,2] 1:2[1,1] 2[2,2]
    G('multi_output_sink', [{"id":0,"op":"input","inputs":[],"size":64},{"id":1,"op":"split","inputs":[0],"outputs":[100,0,200]},{"id":2,"op":"f","inputs":[[1,0]],"size":30}],
      M=[64, 364, 130], arena=392, lb=(364, 364), buffers=4, sum_sizes=394, data_edges=2,
      inplace_edges=0, graph_outputs=1, base_time=2),
    # 0[0,1] 1[0,1]
    G('inputs_only', [{"id":0,"op":"input","inputs":[],"size":100},{"id":1,"op":"input","inputs":[],"size":200}],
      M=[300, 300], arena=328, lb=(200, 300), buffers=2, sum_sizes=300, data_edges=0,
      inplace_edges=0, graph_outputs=2, base_time=0),
    # 0[0,5] 1[1,5] 3[3,5] 5[5,5]
    G('inplace_twice_same_storage_reader_between', [{"id":0,"op":"a","inputs":[],"size":100},{"id":1,"op":"r","inputs":[0],"size":10},{"id":2,"op":"i1","inputs":[0],"size":100,"alias":0,"inplace":True},{"id":3,"op":"s","inputs":[0],"size":20},{"id":4,"op":"i2","inputs":[0],"size":100,"alias":0,"inplace":True},{"id":5,"op":"t","inputs":[2,4],"size":30}],
      M=[100, 110, 110, 130, 130, 160], arena=266, lb=(130, 160), buffers=4, sum_sizes=160, data_edges=6,
      inplace_edges=5, graph_outputs=3, base_time=4),
    # 0[0,2] 2[2,3]
    G('view_sink_of_inplace_with_output', [{"id":0,"op":"a","inputs":[],"size":100},{"id":1,"op":"relu_","inputs":[0],"size":100,"alias":0,"inplace":True},{"id":2,"op":"b","inputs":[1],"size":7},{"id":3,"op":"output","inputs":[2],"size":0}],
      M=[100, 100, 107, 7], arena=135, lb=(107, 107), buffers=2, sum_sizes=107, data_edges=3,
      inplace_edges=0, graph_outputs=1, base_time=2),
    # 0[0,1] 1[1,4] 4[4,5]
    G('costs', [{"id":0,"op":"input","inputs":[],"size":100},{"id":1,"op":"a","inputs":[0],"size":100,"cost":2.5},{"id":2,"op":"relu_","inputs":[1],"size":100,"alias":1,"inplace":True},{"id":3,"op":"view","inputs":[2],"size":100,"alias":2},{"id":4,"op":"b","inputs":[3],"size":100},{"id":5,"op":"output","inputs":[4],"size":0}],
      M=[100, 200, 100, 100, 200, 100], arena=228, lb=(200, 200), buffers=3, sum_sizes=300, data_edges=5,
      inplace_edges=1, graph_outputs=1, base_time=3.5),
    # 0[0,6] 1[1,6] 3[3,4] 4[4,6] 6[6,6]
    G('two_output_nodes', [{"id":0,"op":"input","inputs":[],"size":100},{"id":1,"op":"a","inputs":[0],"size":200},{"id":2,"op":"output","inputs":[1],"size":0},{"id":3,"op":"b","inputs":[1],"size":300},{"id":4,"op":"c","inputs":[3],"size":50},{"id":5,"op":"output","inputs":[4],"size":0},{"id":6,"op":"dead","inputs":[0],"size":70}],
      M=[100, 300, 300, 600, 650, 350, 420], arena=712, lb=(500, 550), buffers=5, sum_sizes=720, data_edges=6,
      inplace_edges=0, graph_outputs=2, base_time=4),
    # 0[0,2] 2[2,2]
    G('view_and_root_read_together', [{"id":0,"op":"a","inputs":[],"size":100},{"id":1,"op":"view","inputs":[0],"size":100,"alias":0},{"id":2,"op":"mul","inputs":[1,0,1],"size":100}],
      M=[100, 100, 200], arena=228, lb=(200, 200), buffers=2, sum_sizes=200, data_edges=3,
      inplace_edges=0, graph_outputs=1, base_time=2),
    # 0[0,1] 1:0[1,2] 1:1[1,2] 2[2,2]
    G('read_all_outputs', [{"id":0,"op":"input","inputs":[],"size":10},{"id":1,"op":"split","inputs":[0],"outputs":[100,200]},{"id":2,"op":"f","inputs":[1],"size":5}],
      M=[10, 310, 305], arena=392, lb=(310, 310), buffers=4, sum_sizes=315, data_edges=2,
      inplace_edges=0, graph_outputs=1, base_time=2),
    # 0[0,2] 1[1,2] 2[2,2]
    G('single_element_outputs', [{"id":0,"op":"a","inputs":[],"outputs":[100]},{"id":1,"op":"b","inputs":[0],"size":40},{"id":2,"op":"c","inputs":[[0,0],1],"size":40}],
      M=[100, 140, 180], arena=228, lb=(180, 180), buffers=3, sum_sizes=180, data_edges=3,
      inplace_edges=0, graph_outputs=1, base_time=3),
    # 0[0,1] 1[1,4] ws:2[2,2] ws:3[3,3] 4[4,4]
    G('inplace_and_view_with_workspace', [{"id":0,"op":"input","inputs":[],"size":100},{"id":1,"op":"a","inputs":[0],"size":200},{"id":2,"op":"relu_","inputs":[1],"size":200,"alias":1,"inplace":True,"workspace":64},{"id":3,"op":"view","inputs":[2],"size":200,"alias":2,"workspace":32},{"id":4,"op":"b","inputs":[3],"size":10}],
      M=[100, 300, 264, 232, 210], arena=328, lb=(300, 300), buffers=5, sum_sizes=406, data_edges=4,
      inplace_edges=1, graph_outputs=1, base_time=2),
    # a training step's parameter P (alias -1, no buffer): A reads it, B reads
    # it through the pure view PV, the optimizer S updates it in place: in-place
    # edges A -> S and B -> S (README: a parameter is a storage for 1.2's rule).
    # Every valid order has A, G and B live together (1700): without the edges
    # G, S, B would peak at 1200 with B reading the updated weight.  S is a
    # view (alias): cost 0.  0[0,2] 2[2,5] 3[3,6] 5[5,7]
    G('param_updated_in_place', [{"id":0,"op":"input","inputs":[],"size":100},{"id":1,"op":"param","inputs":[],"size":64,"alias":-1},{"id":2,"op":"a","inputs":[0,1],"size":200},{"id":3,"op":"g","inputs":[2],"size":1000},{"id":4,"op":"view","inputs":[1],"size":64,"alias":1},{"id":5,"op":"b","inputs":[2,4],"size":500},{"id":6,"op":"sgd_","inputs":[1,3],"size":64,"alias":1,"inplace":True},{"id":7,"op":"output","inputs":[5],"size":0}],
      M=[100, 100, 300, 1200, 1200, 1700, 1500, 500], arena=1736, lb=(1200, 1700), buffers=4, sum_sizes=1800, data_edges=9,
      inplace_edges=2, graph_outputs=1, base_time=3),
]

# the recomputation and offload graphs of the event plans below
GRAPHS += [
    # x input; a(x) b(a) c(b) d(c) e(d, b); one output node
    G('chain', [{"id":0,"op":"input","size":100,"inputs":[]},{"id":1,"op":"f","size":200,"inputs":[0]},
                {"id":2,"op":"f","size":300,"inputs":[1]},{"id":3,"op":"f","size":400,"inputs":[2]},
                {"id":4,"op":"f","size":500,"inputs":[3]},{"id":5,"op":"f","size":50,"inputs":[4,2]},
                {"id":6,"op":"output","size":0,"inputs":[5]}]),
    # a big input read by the first and the last node; 100 bytes per cost unit
    G('offload', [{"id":0,"op":"input","size":1000,"inputs":[]},{"id":1,"op":"f","size":10,"inputs":[0]},
                  {"id":2,"op":"f","size":10,"inputs":[1]},{"id":3,"op":"f","size":10,"inputs":[2]},
                  {"id":4,"op":"f","size":10,"inputs":[3,0]},{"id":5,"op":"output","size":0,"inputs":[4]}],
      host_bandwidth=100),
    # two inputs; a (cost 20) makes a tuple whose element 1 nobody reads
    G('deadfree', [{"id":0,"op":"input","size":100,"inputs":[]},{"id":1,"op":"input","size":100,"inputs":[]},
                   {"id":2,"op":"f","outputs":[50,60],"inputs":[1],"cost":20},
                   {"id":3,"op":"f","size":10,"inputs":[[2,0],0]}], host_bandwidth=10),
]

# Plans (DESIGN 1.5): (what, graph, plan, valid or the error's words).  A valid
# plan states the figures it should recompute to.
PLANS = [
    # order 1,2,3,0,4: 1[0,1] 2[1,2] 3[2,4] 0[0,4] (an input, whatever its
    # step) 4[4,4]; M = 1010, 1030, 1050, 1030, 1035.  "3" ends at 1024+30 and
    # "2" starts at 1088 but they live together: touching, not overlapping
    ('an input run late; offsets that touch', 'input_consumed_last',
     {"order":[1,2,3,0,4],"offsets":{"0":0,"1":1024,"2":1088,"3":1024,"4":1088},
      "live_peak":1050,"arena":1108,"sum_sizes":1065}, True),
    ('the same plan overlapping by 40 bytes', 'input_consumed_last',
     {"order":[1,2,3,0,4],"offsets":{"0":0,"1":960,"2":1088,"3":1024,"4":1088}}, 'overlap'),
    ('a misaligned offset', 'input_consumed_last',
     {"order":[1,2,3,0,4],"offsets":{"0":0,"1":1000,"2":1088,"3":1024,"4":1088}}, 'alignment'),
    ('the same plan stating a wrong live peak', 'input_consumed_last',
     {"order":[1,2,3,0,4],"offsets":{"0":0,"1":1024,"2":1088,"3":1024,"4":1088},
      "live_peak":1051}, 'live_peak'),
    # b_early reads a; relu_ writes a through a view after it in the file
    ('a reader moved after the in-place write through a view', 'inplace_on_view',
     {"order":[0,1,3,2,4,5],"offsets":{"0":0,"2":1024,"4":1088}}, 'in-place edge'),
    ('a reader between two in-place writers moved before the first', 'inplace_twice_same_storage_reader_between',
     {"order":[0,1,3,2,4,5],"offsets":{"0":0,"1":128,"3":192,"5":256}}, 'in-place edge'),
    # order 0,6,1,3,4,2,5: dead 6 lives at step 1 only; 3 is born at step 3
    ('a dead value sharing space with a later buffer', 'two_output_nodes',
     {"order":[0,6,1,3,4,2,5],"offsets":{"0":0,"1":128,"3":384,"4":704,"6":384},
      "live_peak":550,"arena":754,"sum_sizes":720}, True),
    # "J" names the buffer of a node with outputs: [x] (one output)
    ('a single-element outputs list named "J"', 'single_element_outputs',
     {"order":[0,1,2],"offsets":{"0":0,"1":128,"2":192},"live_peak":180,"arena":232}, True),
]

# Event plans (DESIGN 6.2, 6.3), offsets one residency after another.  The
# start is a memory sample (README "The start is a memory sample").
EVENTS = [
    # samples: start 100; a 300; b 600; c 800 (x b c after free a); d 1000
    # (x c d after free b); a again 800 (x d a after free c); b again 1000;
    # e 850 (d b e after free a); out 50 after the frees.  Seven runs of cost
    # 1, two of them reruns.
    ('recompute b after its input a was freed: a first', 'chain',
     {"order":[0,1,2,3,4,5,6],"events":[["run",1],["run",2],["free","1"],["run",3],["free","2"],["run",4],["free","3"],["run",1],["free","0"],["run",2],["free","1"],["run",5],["free","4"],["free","2"],["run",6]],"offsets":{"0":0,"1":128,"2":384,"3":704,"4":1152,"1@7":1664,"2@9":1920,"5":2240},"budget":1000,"live_peak":1000,"duration":7.0,"base_time":5,"recompute_time":2.0,"recomputed":2,"stall_time":0.0,"transferred":0}, True),
    ('recompute b while its input a is freed', 'chain',
     {"order":[0,1,2,3,4,5,6],"events":[["run",1],["run",2],["free","1"],["run",3],["free","2"],["run",4],["free","3"],["run",2],["run",5],["free","4"],["free","2"],["run",6]],"offsets":{"0":0,"1":128,"2":384,"3":704,"4":1152,"2@7":1664,"5":1984},"budget":2000}, 'not resident'),
    # out x 0..10 beside run a 0..1; free x holds the issue to 10; b 10..11,
    # c 11..12; in x 12..22; d 22..23; out 23 (cost 0).  Samples 1000 1010
    # 20 20 1010 1020 10: peak 1020; stall 23 - 4 = 19; 2000 bytes moved
    ('out at the first event, in before the last run', 'offload',
     {"order":[0,1,2,3,4,5],"events":[["out","0"],["run",1],["free","0"],["run",2],["free","1"],["run",3],["free","2"],["in","0"],["run",4],["free","3"],["free","0"],["run",5]],"offsets":{"0":0,"1":1024,"2":1088,"3":1152,"0@7":1216,"4":2240},"budget":1020,"live_peak":1020,"duration":23.0,"base_time":4,"recompute_time":0.0,"recomputed":0,"stall_time":19.0,"transferred":2000}, True),
    ('the same plan with a budget one byte below its peak', 'offload',
     {"order":[0,1,2,3,4,5],"events":[["out","0"],["run",1],["free","0"],["run",2],["free","1"],["run",3],["free","2"],["in","0"],["run",4],["free","3"],["free","0"],["run",5]],"offsets":{"0":0,"1":1024,"2":1088,"3":1152,"0@7":1216,"4":2240},"budget":1019}, 'budget'),
    ('in without an earlier out', 'offload',
     {"order":[0,1,2,3,4,5],"events":[["run",1],["free","0"],["run",2],["free","1"],["run",3],["free","2"],["in","0"],["run",4],["run",5]],"offsets":{"0":0,"1":1024,"2":1088,"3":1152,"0@6":1216,"4":2240},"budget":5000}, 'host copy'),
    # a 0..20; b 20..21; out b 21..22; free b holds to 22; in b 22..23
    ('a graph output offloaded and brought back as the last event', 'deadfree',
     {"order":[0,1,2,3],"events":[["run",2],["free","2:1"],["free","1"],["run",3],["free","2:0"],["free","0"],["out","3"],["free","3"],["in","3"]],"offsets":{"0":0,"1":128,"2:0":256,"2:1":320,"3":384,"3@8":448},"budget":10000,"live_peak":310,"duration":23.0,"base_time":21,"recompute_time":0.0,"recomputed":0,"stall_time":2.0,"transferred":20}, True),
    # out x 0..10; free x holds to 10; a 10..30; free 2:1 waits for no reader
    # (README: not for the run that made it); in x 10..20; b 30..31
    ('freeing a dead tuple element does not wait for its producer', 'deadfree',
     {"order":[0,1,2,3],"events":[["out","0"],["free","0"],["run",2],["free","2:1"],["in","0"],["free","1"],["run",3],["free","2:0"],["free","0"]],"offsets":{"0":0,"1":128,"2:0":256,"2:1":320,"0@4":384,"3":512},"budget":10000,"live_peak":250,"duration":31.0,"base_time":21,"recompute_time":0.0,"recomputed":0,"stall_time":10.0,"transferred":200}, True),
    ('keep-all with the budget equal to the peak', 'inplace_chain',
     {"order":[0,1,2,3,4,5,6],"events":[["run",1],["free","0"],["run",2],["run",3],["run",4],["run",5],["free","1"],["run",6]],"offsets":{"0":0,"1":64,"2":192,"5":256},"budget":416,"live_peak":416,"duration":3.0,"base_time":3,"recompute_time":0.0,"recomputed":0,"stall_time":0.0,"transferred":0}, True),
    ('storage written in place made again', 'inplace_chain',
     {"order":[0,1,2,3,4,5,6],"events":[["run",1],["run",2],["run",3],["run",4],["run",5],["free","1"],["run",1],["run",6],["free","0"]],"offsets":{"0":0,"1":64,"2":192,"5":256,"1@6":512},"budget":1000}, 'in-place'),
    ('storage written in place offloaded', 'inplace_chain',
     {"order":[0,1,2,3,4,5,6],"events":[["run",1],["free","0"],["run",2],["run",3],["run",4],["out","1"],["free","1"],["in","1"],["run",5],["free","1"],["run",6]],"offsets":{"0":0,"1":64,"2":192,"1@7":256,"5":384},"budget":1000,"bandwidth":64}, 'in-place'),
    ('first runs against an in-place edge', 'inplace_chain',
     {"order":[0,1,3,2,4,5,6],"events":[["run",1],["free","0"],["run",3],["run",2],["run",4],["run",5],["free","1"],["run",6]],"offsets":{"0":0,"1":64,"2":192,"5":256},"budget":1000}, 'in-place edge'),
    # the input nobody reads, freed before any run: section 1's 5100
    ('a dead input freed before the first run', 'input_unread_with_output',
     {"order":[0,1,2,3],"events":[["free","0"],["run",2],["free","1"],["run",3]],"offsets":{"0":0,"1":5056,"2":5184},"budget":5100,"live_peak":5100,"duration":1.0,"base_time":1,"recompute_time":0.0,"recomputed":0,"stall_time":0.0,"transferred":0}, True),
    ('a dead input freed after the first run', 'input_unread_with_output',
     {"order":[0,1,2,3],"events":[["run",2],["free","0"],["free","1"],["run",3]],"offsets":{"0":0,"1":5056,"2":5184},"budget":5110,"live_peak":5110,"duration":1.0,"base_time":1,"recompute_time":0.0,"recomputed":0,"stall_time":0.0,"transferred":0}, True),
    # a's workspace is held again when a runs again: 1100 twice
    ('a node with a workspace run again', 'workspace',
     {"order":[0,1,2],"events":[["run",0],["run",1],["free","0"],["free","1"],["run",0],["run",1],["free","0"],["run",2],["free","1"]],"offsets":{"0":0,"ws:0":128,"1":1152,"ws:1":1408,"0@4":1472,"ws:0@4":1600,"1@5":2624,"ws:1@5":2880,"ws:2":2944},"budget":1100,"live_peak":1100,"duration":5.0,"base_time":3,"recompute_time":2.0,"recomputed":2,"stall_time":0.0,"transferred":0}, True),
]

# Fixed-lifetime problems (DESIGN 1.4): (what, csv, solve args, expected
# figures of `solve --place exact`, offsets by id or None)
CSVS = [
    # [5,5) is empty: nothing in the profile (over [0, 5), README), but its
    # 100 bytes are placed somewhere: arena 100
    ('an empty lifetime', 'id,lower,upper,size\n0,5,5,100\n1,0,1,10\n', [],
     dict(live_peak=10, arena=100, sum_sizes=110, fragmentation=0.9, reuse_ratio=1.1,
          profile_std=4.0), None),
    ('touching lifetimes share', 'id,lower,upper,size\n0,0,2,100\n1,2,4,100\n', [],
     dict(live_peak=100, arena=100, sum_sizes=200, fragmentation=0.0, reuse_ratio=2.0,
          profile_std=0.0), {'0': 0, '1': 0}),
    # 5 bytes at 4-alignment at 0, 3 bytes (alignment 1) right after: 8
    ('an alignment column', 'id,lower,upper,size,alignment\n0,0,2,3,1\n1,1,3,5,4\n', [],
     dict(live_peak=8, arena=8, sum_sizes=8, fragmentation=0.0), {'0': 5, '1': 0}),
    # README "CSV alignment": the column wins over --align; an empty cell is 1
    ('an alignment column beside --align 8', 'id,lower,upper,size,alignment\n0,0,2,3,1\n1,1,3,5,4\n',
     ['--align', '8'], dict(live_peak=8, arena=8), {'0': 5, '1': 0}),
    ('an empty alignment cell beside --align 8', 'id,lower,upper,size,alignment\n0,0,2,3,\n1,1,3,5,4\n',
     ['--align', '8'], dict(live_peak=8, arena=8), {'0': 5, '1': 0}),
    # both at 8-alignment: 5 bytes at 0, 3 bytes at 8
    ('--align 8 without the column', 'id,lower,upper,size\n0,0,2,3\n1,1,3,5\n',
     ['--align', '8'], dict(live_peak=8, arena=11), {'0': 8, '1': 0}),
    ('a size-0 buffer', 'id,lower,upper,size\n0,0,2,0\n1,0,2,50\n', [],
     dict(live_peak=50, arena=50, sum_sizes=50), None),
    ('a pinned offset', 'id,lower,upper,size,offset\n0,0,2,10,100\n1,0,2,20,\n', [],
     dict(live_peak=30, arena=110, fragmentation=80 / 110), {'0': 100, '1': 0}),
    # profile over [3, 6): 10 30 20 (README)
    ('a time axis starting at 3', 'id,lower,upper,size\n0,3,5,10\n1,4,6,20\n', [],
     dict(live_peak=30, arena=30, profile_std=math.sqrt(200 / 3)), None),
]

# CSV plans for `verify`: (what, problem, placed, valid or the error's words)
CSV_PLANS = [
    ('touching lifetimes at one offset', 'id,lower,upper,size\n0,0,2,10\n1,2,3,10\n',
     'id,lower,upper,size,offset\n0,0,2,10,0\n1,2,3,10,0\n', True),
    ('overlapping by one byte', 'id,lower,upper,size\n0,0,2,10\n1,1,3,10\n',
     'id,lower,upper,size,offset\n0,0,2,10,0\n1,1,3,10,9\n', 'overlap'),
    # README "Empty lifetimes": [5,5) conflicts with what is live across 5
    ('an empty lifetime inside another', 'id,lower,upper,size\n0,5,5,100\n1,4,6,10\n',
     'id,lower,upper,size,offset\n0,5,5,100,0\n1,4,6,10,95\n', 'overlap'),
    ('an empty lifetime at another\'s end', 'id,lower,upper,size\n0,5,5,100\n1,4,5,10\n',
     'id,lower,upper,size,offset\n0,5,5,100,0\n1,4,5,10,95\n', True),
]


class Check:
    def __init__(self, mp):
        self.mp = mp
        self.tmp = tempfile.mkdtemp(prefix='memplan-corners-')
        self.bad = []
        self.n = 0

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def run(self, *args):
        p = subprocess.run([self.mp] + list(args), capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    def json(self, what, *args):
        rc, out, err = self.run(*args, '--format', 'json')
        if rc != 0:
            self.fail(what, 'exit %d: %s' % (rc, err.strip()[:200]))
            return None
        return json.loads(out)

    def fail(self, what, msg):
        self.bad.append('%s: %s' % (what, msg))

    def same(self, what, key, got, want):
        self.n += 1
        if isinstance(want, float) or isinstance(got, float):
            ok = got is not None and abs(got - want) <= 1e-9 * max(1.0, abs(want))
        else:
            ok = got == want
        if not ok:
            self.fail(what, '%s is %r, expected %r' % (key, got, want))

    def graph(self, g):
        e = g['exp']
        doc = {'name': g['name'], 'nodes': g['nodes']}
        for k in ('host_bandwidth',):
            if k in e:
                doc[k] = e.pop(k)
        g['path'] = path = self.write(g['name'] + '.json', json.dumps(doc))
        if 'M' not in e:
            return
        what = 'graph ' + g['name']
        M = e['M']
        peak = max(M, default=0)
        info = self.json(what + ' info', 'info', path)
        if info:
            for k in ('buffers', 'sum_sizes', 'data_edges', 'inplace_edges', 'graph_outputs'):
                self.same(what + ' info', k, info[k], e[k])
            self.same(what + ' info', 'live_peak', info['live_peak'], peak)
            lo, hi = e['lb']
            self.n += 1
            if not lo <= info['lower_bound'] <= hi:
                self.fail(what, 'lower_bound %d outside [%d, %d]' % (info['lower_bound'], lo, hi))
        mean = sum(M) / len(M) if M else 0.0
        std = math.sqrt(sum((m - mean) ** 2 for m in M) / len(M)) if M else 0.0
        r = self.json(what + ' solve', 'solve', path, '--place', 'exact')
        if r:
            a = e['arena']
            want = dict(live_peak=peak, arena=a, sum_sizes=e['sum_sizes'], buffers=e['buffers'],
                        profile_std=std, fragmentation=(a - peak) / a if a else 0.0,
                        reuse_ratio=e['sum_sizes'] / a if a else 0.0)
            for k, v in want.items():
                self.same(what + ' solve', k, r[k], v)
        r = self.json(what + ' keepall', 'solve', path, '--remat', 'keepall', '--budget-frac', '1')
        if r:
            self.same(what + ' keepall', 'live_peak', r['live_peak'], peak)
            self.same(what + ' keepall', 'sum_sizes', r['sum_sizes'], e['sum_sizes'])
            self.same(what + ' keepall', 'base_time', r['base_time'], float(e['base_time']))
            self.same(what + ' keepall', 'duration', r['duration'], float(e['base_time']))
            # no input node, no start sample: 6.2's rule to the letter
            if not any(nd.get('op') == 'input' for nd in g['nodes']):
                self.same(what + ' keepall', 'profile_std', r['profile_std'], std)

    def verdict(self, what, args, want):
        rc, out, err = self.run('verify', *args)
        self.n += 1
        if want is True and rc != 0:
            self.fail(what, 'verify refuses a valid plan: %s' % err.strip()[:200])
        elif want is not True and (rc != 1 or want not in err):
            self.fail(what, 'verify exits %d, expected 1 naming %r: %s' % (rc, want, err.strip()[:200]))

    def plans(self, graphs, plans, events):
        for what, name, plan, want in plans + events:
            g = graphs[name]
            body = dict(plan, graph=name, align=64)
            p = self.write('plan.json', json.dumps(body))
            self.verdict('plan ' + what, [g['path'], p], want)

    def csvs(self):
        for i, (what, text, args, want, offs) in enumerate(CSVS):
            path = self.write('c%d.csv' % i, text)
            out = os.path.join(self.tmp, 'c%d.out.csv' % i)
            r = self.json('csv ' + what, 'solve', path, '--place', 'exact', '--out', out, *args)
            if not r:
                continue
            for k, v in want.items():
                self.same('csv ' + what, k, r[k], v)
            if offs is not None:
                with open(out) as f:
                    rows = [ln.split(',') for ln in f.read().split('\n')[1:] if ln]
                self.same('csv ' + what, 'offsets', {c[0]: int(c[-1]) for c in rows}, offs)
            self.verdict('csv ' + what + ' (its own plan)', [path, out] + args, True)
        for i, (what, prob, placed, want) in enumerate(CSV_PLANS):
            a = self.write('p%d.csv' % i, prob)
            b = self.write('p%d.out.csv' % i, placed)
            self.verdict('csv plan ' + what, [a, b], want)


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument('--bin', default=os.path.join(here, '..', '..', 'bin', 'memplan'))
    args = ap.parse_args()
    c = Check(os.path.abspath(args.bin))
    graphs = {}
    for g in GRAPHS:
        c.graph(g)
        graphs[g['name']] = g
    c.plans(graphs, PLANS, EVENTS)
    c.csvs()
    cases = len([g for g in GRAPHS if 'M' in g['exp']]) + len(PLANS) + len(EVENTS) + len(CSVS) + len(CSV_PLANS)
    shutil.rmtree(c.tmp, ignore_errors=True)
    for b in c.bad:
        print('corners: ' + b)
    print('corners: %d cases, %d checks, %d disagreements' % (cases, c.n, len(c.bad)))
    return 1 if c.bad else 0


if __name__ == '__main__':
    sys.exit(main())
