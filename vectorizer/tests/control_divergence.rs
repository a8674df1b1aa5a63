//! Control divergence (`Cfg::divergent_joins`, thesis ch. 7) on the CFGs of
//! the thesis figures and of LLVM's DivergenceAnalysis tests, built by hand.
//!
//! The figures exist only as captions and prose in our copy of the thesis,
//! so most CFGs are reconstructed (notes/rv-thesis-part1.md §7). Each
//! expectation is derived from the definitions: a block is a *sync* join
//! when two almost node-disjoint paths from the divergent node reach it, at
//! least one starting with a divergent edge; a loop exit is *temporally*
//! divergent when lanes can reach it in different iterations (it is reached
//! by a path whose `DomMap` value differs from the one carried around the
//! back edge); a *divergent loop* is one that lanes leave in different
//! iterations. Comments explain the non-obvious cases.

use std::collections::HashMap;

use lanes_frontend::ast::NodeId;
use lanes_frontend::source::Span;
use lanes_vectorizer::cfg::{canonicalize, is_canonical, Cfg};
use lanes_vectorizer::ir::verify::verify;
use lanes_vectorizer::ir::{BlockId, Function, InstKind, Param, Src, Ty};

fn src() -> Src {
    Src {
        node: NodeId(0),
        span: Span::default(),
    }
}

/// A function from an edge list: `(block, successors)`, the first block is
/// the entry. No successor: `ret`; one: `br`; two: `br %c`; more: `switch %s`.
fn build(edges: &[(&str, &[&str])]) -> Function {
    let mut f = Function::new("k", Span::default());
    let param = |f: &mut Function, name: &str, ty: Ty| {
        f.add_param(Param {
            name: name.into(),
            ty,
            source_index: 0,
            component: None,
            span: Span::default(),
        })
    };
    let c = param(&mut f, "c", Ty::I1);
    let s = param(&mut f, "s", Ty::I32);
    let mut ids: HashMap<&str, BlockId> = HashMap::new();
    for &(name, _) in edges {
        let b = f.add_block(name);
        assert!(ids.insert(name, b).is_none(), "duplicate block {name}");
    }
    for &(name, succs) in edges {
        let t: Vec<BlockId> = succs
            .iter()
            .map(|s| *ids.get(s).unwrap_or_else(|| panic!("unknown block {s}")))
            .collect();
        let kind = match t.len() {
            0 => InstKind::Ret,
            1 => InstKind::Br(t[0]),
            2 => InstKind::CondBr {
                cond: c,
                then: t[0],
                els: t[1],
            },
            _ => InstKind::Switch {
                value: s,
                default: t[0],
                cases: t[1..]
                    .iter()
                    .enumerate()
                    .map(|(k, &b)| (k as u64, b))
                    .collect(),
            },
        };
        f.append(ids[name], kind, Ty::Void, src());
    }
    verify(&f).unwrap_or_else(|e| panic!("{e:?}"));
    f
}

/// A CFG that is already canonical (checked).
fn canonical(edges: &[(&str, &[&str])]) -> Function {
    let f = build(edges);
    is_canonical(&f).unwrap_or_else(|e| panic!("not canonical: {e}"));
    f
}

/// A CFG put in canonical form by `canonicalize`.
fn canonicalized(edges: &[(&str, &[&str])]) -> Function {
    let mut f = build(edges);
    canonicalize(&mut f).unwrap();
    verify(&f).unwrap_or_else(|e| panic!("{e:?}"));
    is_canonical(&f).unwrap();
    f
}

/// Block names: labels, except that a split exit edge `a -> b` is `a>b`.
fn names(f: &Function) -> Vec<String> {
    let preds = f.predecessors();
    f.block_ids()
        .map(|b| {
            let label = f.block(b).label.to_string();
            if label == "loop.exit" {
                let succ = f.successors(b);
                format!(
                    "{}>{}",
                    f.block(preds[b.index()][0]).label,
                    f.block(succ[0]).label
                )
            } else {
                label
            }
        })
        .collect()
}

fn id(f: &Function, name: &str) -> BlockId {
    let n = names(f);
    let i = n
        .iter()
        .position(|x| x == name)
        .unwrap_or_else(|| panic!("no block {name} in {n:?}"));
    BlockId(i as u32)
}

#[derive(Debug, PartialEq, Eq)]
struct Expect {
    sync: Vec<&'static str>,
    loop_exits: Vec<&'static str>,
    /// Divergent loops, by header.
    loops: Vec<&'static str>,
}

fn expect(sync: &[&'static str], loop_exits: &[&'static str], loops: &[&'static str]) -> Expect {
    let sorted = |v: &[&'static str]| {
        let mut v = v.to_vec();
        v.sort();
        v
    };
    Expect {
        sync: sorted(sync),
        loop_exits: sorted(loop_exits),
        loops: sorted(loops),
    }
}

/// `divergent_joins` of the terminator of `block`: all successors divergent
/// unless `div`/`uni` say otherwise.
fn joins_partial(f: &Function, block: &str, div: &[&str], uni: &[&str]) -> Expect {
    let cfg = Cfg::compute(f);
    let n = names(f);
    let ids = |v: &[&str]| v.iter().map(|x| id(f, x)).collect::<Vec<_>>();
    let j = cfg.divergent_joins(id(f, block), &ids(div), &ids(uni));
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let named = |v: &[BlockId]| {
        let mut v: Vec<&'static str> = v.iter().map(|b| leak(n[b.index()].clone())).collect();
        v.sort();
        v
    };
    let headers: Vec<BlockId> = j
        .divergent_loops
        .iter()
        .map(|&l| cfg.loops().get(l).unwrap().header)
        .collect();
    Expect {
        sync: named(&j.sync),
        loop_exits: named(&j.loop_exits),
        loops: named(&headers),
    }
}

fn joins(f: &Function, block: &str) -> Expect {
    let cfg = Cfg::compute(f);
    let b = id(f, block);
    let n = names(f);
    let succs: Vec<&str> = cfg
        .succs(b)
        .iter()
        .map(|s| -> &str { Box::leak(n[s.index()].clone().into_boxed_str()) })
        .collect();
    joins_partial(f, block, &succs, &[])
}

// ---- Fig. 7.1: the canonical sync and temporal examples --------------------

#[test]
fn fig_7_1_sync_divergence() {
    let f = canonical(&[("A", &["B", "C"]), ("B", &["D"]), ("C", &["D"]), ("D", &[])]);
    assert_eq!(joins(&f, "A"), expect(&["D"], &[], &[]));
}

#[test]
fn fig_7_1_temporal_divergence() {
    // B loops on itself and exits to X: lanes leave in different iterations.
    // X is temporally divergent although it post-dominates the loop.
    let f = canonical(&[("A", &["B"]), ("B", &["B", "X"]), ("X", &[])]);
    assert_eq!(joins(&f, "B"), expect(&[], &["X"], &["B"]));
}

// ---- Fig. 7.3: the global_joins walkthrough --------------------------------

#[test]
fn fig_7_3_divergent_loop_header() {
    // Loop A..D with a divergent header: A -> B -> C -> D and A -> D; exits
    // E (from B) and F (from C) meet in X. Round 1 finds D; collapsing the
    // loop (E, F divergent exits) finds X. No two disjoint paths lead from A
    // to E and F, yet lanes leave through them in different iterations.
    let f = canonical(&[
        ("P", &["A"]),
        ("A", &["B", "D"]),
        ("B", &["C", "E"]),
        ("C", &["D", "F"]),
        ("D", &["A"]),
        ("E", &["X"]),
        ("F", &["X"]),
        ("X", &[]),
    ]);
    assert_eq!(joins(&f, "A"), expect(&["D", "X"], &["E", "F"], &["A"]));
}

// ---- Fig. 7.7: local_joins walkthroughs ------------------------------------

#[test]
fn fig_7_7a_local_joins() {
    // Block labels are the figure's block indices. Parent loop 0..5 (latch
    // 5), divergent block 2 with successors 3 and 5: PushDef(5, 3) finds 5
    // as a join; 8 and 9 are reached and differ from the header's value
    // (5), so they are divergent exits; exits 6 and 7 are not reachable
    // from 2 and stay uniform. All exits meet in `end`, a sync join once the
    // loop is collapsed (8, 9 divergent, 6, 7 uniform).
    let f = canonical(&[
        ("pre", &["0"]),
        ("0", &["1", "7"]),
        ("1", &["2", "6"]),
        ("2", &["3", "5"]),
        ("3", &["4", "8"]),
        ("4", &["5", "9"]),
        ("5", &["0"]),
        ("6", &["end"]),
        ("7", &["end"]),
        ("8", &["end"]),
        ("9", &["end"]),
        ("end", &[]),
    ]);
    let cfg = Cfg::compute(&f);
    // The block index follows the figure's numbering.
    let order: Vec<String> = cfg
        .block_index()
        .order()
        .iter()
        .map(|b| f.block(*b).label.to_string())
        .collect();
    assert_eq!(&order[..7], &["pre", "0", "1", "2", "3", "4", "5"]);
    assert_eq!(joins(&f, "2"), expect(&["5", "end"], &["8", "9"], &["0"]));
}

#[test]
fn fig_7_7b_partially_divergent_node() {
    // The collapsed inner loop of the figure as a partially divergent node
    // N: uniform successors 5 and 6 (uniform exits), divergent successor 8.
    // 5 and 6 both carry `u` into 7, so 7 is no join ({5, 6} ∉ Cnb); 8 is a
    // divergent exit of the parent loop 0..7.
    let edges: &[(&str, &[&str])] = &[
        ("pre", &["0"]),
        ("0", &["N"]),
        ("N", &["5", "6", "8"]),
        ("5", &["7"]),
        ("6", &["7"]),
        ("7", &["0"]),
        ("8", &[]),
    ];
    let f = canonical(edges);
    assert_eq!(
        joins_partial(&f, "N", &["8"], &["5", "6"]),
        expect(&[], &["8"], &["0"])
    );
    // Fully divergent, 7 would be a join.
    assert_eq!(joins(&f, "N"), expect(&["7"], &["8"], &["0"]));
}

#[test]
fn fig_7_7b_with_the_real_inner_loop() {
    // Inner loop 1..4 with uniform exits 5 (from 2) and 6 (from 3) and a
    // divergent latch branch in 4 whose exit 8 leaves both loops. Lanes
    // leave both loops in different iterations through 8; 7 (where 5 and 6
    // meet) is never reached by disjoint paths.
    let f = canonical(&[
        ("pre", &["0"]),
        ("0", &["1"]),
        ("1", &["2"]),
        ("2", &["3", "5"]),
        ("3", &["4", "6"]),
        ("4", &["1", "8"]),
        ("5", &["7"]),
        ("6", &["7"]),
        ("7", &["0"]),
        ("8", &[]),
    ]);
    assert_eq!(joins(&f, "4"), expect(&[], &["8"], &["0", "1"]));
}

// ---- Fig. 7.6: mixed uniform and divergent exits ----------------------------

#[test]
fn fig_7_6_mixed_exits_collapse_precisely() {
    // Loop H with uniform exits W (from H) and X (from A), and a divergent
    // branch in B leaving through Y. W and X meet in J before `end`. Lanes
    // still in the loop leave together through W or X, so J is no join;
    // `end` joins them with the lanes that left through Y earlier.
    let f = canonical(&[
        ("pre", &["H"]),
        ("H", &["A", "W"]),
        ("A", &["B", "X"]),
        ("B", &["C", "Y"]),
        ("C", &["H"]),
        ("W", &["J"]),
        ("X", &["J"]),
        ("J", &["end"]),
        ("Y", &["end"]),
        ("end", &[]),
    ]);
    assert_eq!(joins(&f, "B"), expect(&["end"], &["Y"], &["H"]));
}

// ---- Fig. 7.9: where earlier analyses fail -----------------------------------

#[test]
fn fig_7_9a_per_exit_temporal_divergence() {
    // Loop H..Q: H -> D (exit) | B; B -> C | Q; C -> E (exit) | Q; Q latch.
    // Temporal divergence of D depends only on h, that of E only on b and c.
    let f = canonical(&[
        ("P", &["H"]),
        ("H", &["D", "B"]),
        ("B", &["C", "Q"]),
        ("C", &["E", "Q"]),
        ("Q", &["H"]),
        ("D", &["end"]),
        ("E", &["end"]),
        ("end", &[]),
    ]);
    // h varying: lanes still in the loop reconverge before E is decided.
    assert_eq!(joins(&f, "H"), expect(&["end"], &["D"], &["H"]));
    // b varying: Q joins the lanes from B and from C.
    assert_eq!(joins(&f, "B"), expect(&["Q", "end"], &["E"], &["H"]));
    // c varying: Q is reached from C only (B's lanes all went to C).
    assert_eq!(joins(&f, "C"), expect(&["end"], &["E"], &["H"]));
}

#[test]
fn fig_7_9b_joins_before_the_ipd() {
    // A: br p -> B, C; B: br q -> D, E; C -> D; D -> F; E -> F.
    let f = canonical(&[
        ("A", &["B", "C"]),
        ("B", &["D", "E"]),
        ("C", &["D"]),
        ("D", &["F"]),
        ("E", &["F"]),
        ("F", &[]),
    ]);
    // p varying: x in D is varying although F is A's IPD.
    assert_eq!(joins(&f, "A"), expect(&["D", "F"], &[], &[]));
    // p uniform, q varying: one path from B reaches D, so x stays uniform.
    assert_eq!(joins(&f, "B"), expect(&["F"], &[], &[]));
}

#[test]
fn fig_7_9c_absolute_predicates() {
    // x = φ in X: 1 from A (a false), 0 from C (c true), 1 from D; the
    // b-taken path (Z) never reaches X: GSSA's γ(a, γ(b, ⊥, γ(c, 0, 1)), 1).
    let f = canonical(&[
        ("A", &["B", "X"]),
        ("B", &["Z", "C"]),
        ("C", &["X", "D"]),
        ("D", &["X"]),
        ("X", &["end"]),
        ("Z", &["end"]),
        ("end", &[]),
    ]);
    // b varying (a, c uniform): b does not decide x, so X is no join; only
    // `end`, where Z's lanes meet X's, is.
    assert_eq!(joins(&f, "B"), expect(&["end"], &[], &[]));
    assert_eq!(joins(&f, "A"), expect(&["X", "end"], &[], &[]));
    assert_eq!(joins(&f, "C"), expect(&["X"], &[], &[]));
}

#[test]
fn fig_7_9d_switch_and_partially_divergent_node() {
    let f = canonical(&[
        ("S", &["B", "C", "D"]),
        ("B", &["J1"]),
        ("C", &["J1"]),
        ("J1", &["J2"]),
        ("D", &["J2"]),
        ("J2", &[]),
    ]);
    // A divergent switch: every pair of cases can be concurrent.
    assert_eq!(joins(&f, "S"), expect(&["J1", "J2"], &[], &[]));
    // B and C uniform (lanes take at most one of them), D divergent.
    assert_eq!(
        joins_partial(&f, "S", &["D"], &["B", "C"]),
        expect(&["J2"], &[], &[])
    );
    // B divergent, C and D uniform.
    assert_eq!(
        joins_partial(&f, "S", &["B"], &["C", "D"]),
        expect(&["J1", "J2"], &[], &[])
    );
    // All uniform: nothing.
    assert_eq!(
        joins_partial(&f, "S", &[], &["B", "C", "D"]),
        expect(&[], &[], &[])
    );
}

#[test]
fn switch_with_duplicate_targets() {
    // Two cases to the same block count once.
    let f = canonical(&[
        ("S", &["B", "B", "C"]),
        ("B", &["J"]),
        ("C", &["J"]),
        ("J", &[]),
    ]);
    assert_eq!(joins(&f, "S"), expect(&["J"], &[], &[]));
}

// ---- LLVM DivergenceAnalysis test patterns (reconstructed) ----------------

#[test]
fn llvm_hidden_diverge() {
    // entry: br %tid < 0 -> B, C; B: br uniform -> C, merge; C -> merge.
    // C's φ [1, entry], [2, B] and merge's φ are both divergent.
    let f = canonical(&[
        ("entry", &["B", "C"]),
        ("B", &["C", "merge"]),
        ("C", &["merge"]),
        ("merge", &[]),
    ]);
    assert_eq!(joins(&f, "entry"), expect(&["C", "merge"], &[], &[]));
}

#[test]
fn llvm_hidden_diverge_loop_variant() {
    // The uniform exits E and F keep uniform LCSSA φs (lanes still in the
    // loop leave together), but G, where they meet the divergent exit X, is
    // a join.
    let f = canonical(&[
        ("entry", &["H"]),
        ("H", &["X", "B"]),
        ("B", &["E", "C"]),
        ("C", &["F", "H"]),
        ("X", &["G"]),
        ("E", &["G"]),
        ("F", &["G"]),
        ("G", &[]),
    ]);
    assert_eq!(joins(&f, "H"), expect(&["G"], &["X"], &["H"]));
}

#[test]
fn llvm_temporal_diverge() {
    // A loop with a separate latch whose divergent branch exits: the
    // uniform counter is divergent at the exit.
    let f = canonical(&[
        ("entry", &["H"]),
        ("H", &["B"]),
        ("B", &["H", "X"]),
        ("X", &[]),
    ]);
    assert_eq!(joins(&f, "B"), expect(&[], &["X"], &["H"]));
    // A uniform branch elsewhere in the loop changes nothing.
    let f = canonical(&[
        ("entry", &["H"]),
        ("H", &["T", "B"]),
        ("T", &["B"]),
        ("B", &["H", "X"]),
        ("X", &[]),
    ]);
    assert_eq!(joins(&f, "B"), expect(&[], &["X"], &["H"]));
    // A divergent branch that reconverges before the uniform exit decision:
    // B joins, the loop stays uniform.
    assert_eq!(joins(&f, "H"), expect(&["B"], &[], &[]));
}

#[test]
fn llvm_divergent_inner_loop_in_uniform_outer_loop() {
    // The inner loop IH exits divergently to IX, the outer latch; the outer
    // loop's exit OX is decided uniformly by all lanes together.
    let f = canonical(&[
        ("entry", &["OH"]),
        ("OH", &["IH"]),
        ("IH", &["IH", "IX"]),
        ("IX", &["OH", "OX"]),
        ("OX", &[]),
    ]);
    assert_eq!(joins(&f, "IH"), expect(&[], &["IX"], &["IH"]));
}

#[test]
fn llvm_hidden_loop_diverge() {
    // Loop H with a uniform exit from the header and a divergent one from
    // the latch B, both to X (split by canonicalization into H>X and B>X).
    // X joins the lanes that left through B>X earlier with those leaving
    // through H>X; X's uniform branch then leaves `exit` a non-join.
    let f = canonicalized(&[
        ("entry", &["H"]),
        ("H", &["X", "B"]),
        ("B", &["X", "H"]),
        ("X", &["Y", "exit"]),
        ("Y", &["exit"]),
        ("exit", &[]),
    ]);
    assert_eq!(joins(&f, "B"), expect(&["X"], &["B>X"], &["H"]));
}

#[test]
fn llvm_hidden_doublebreak_diverge() {
    // Outer loop OH with a uniform exit to X; inner loop IH with a uniform
    // exit to the outer latch OL and a divergent double break from B to X.
    // Lanes leave both loops in different iterations through B>X; X joins
    // them with the lanes leaving through OH>X.
    let f = canonicalized(&[
        ("entry", &["OH"]),
        ("OH", &["IH", "X"]),
        ("IH", &["B", "OL"]),
        ("B", &["X", "IH"]),
        ("OL", &["OH"]),
        ("X", &[]),
    ]);
    assert_eq!(joins(&f, "B"), expect(&["X"], &["B>X"], &["IH", "OH"]));
}

#[test]
fn llvm_join_at_loop_exit() {
    // exit: φ [true, bb1], [false, bb2] with both bb1 (divergent) and bb2
    // (uniform latch branch) exiting to it: divergent.
    let f = canonicalized(&[
        ("entry", &["H"]),
        ("H", &["bb1"]),
        ("bb1", &["exit", "bb2"]),
        ("bb2", &["exit", "H"]),
        ("exit", &[]),
    ]);
    assert_eq!(joins(&f, "bb1"), expect(&["exit"], &["bb1>exit"], &["H"]));
}

#[test]
fn llvm_trivial_join_at_loop_exit() {
    // exit: φ [true, entry], [false, loop]: the other incoming edge comes from
    // outside the loop, decided uniformly before it, so the φ is uniform;
    // only the loop's own exit (with its LCSSA φs) is temporally divergent.
    let f = canonicalized(&[
        ("entry", &["loop", "exit"]),
        ("loop", &["loop", "exit"]),
        ("exit", &[]),
    ]);
    assert_eq!(joins(&f, "loop"), expect(&[], &["loop>exit"], &["loop"]));
}

// ---- robustness ----------------------------------------------------------------

#[test]
fn non_canonical_and_bad_input_do_not_panic() {
    // Two latches, a shared exit, an irreducible cycle: answers, no panic.
    let f = build(&[
        ("entry", &["H", "X"]),
        ("H", &["A", "X"]),
        ("A", &["H", "B"]),
        ("B", &["H", "X"]),
        ("X", &[]),
    ]);
    assert!(is_canonical(&f).is_err());
    let _ = joins(&f, "H");
    let _ = joins(&f, "A");
    let cfg = Cfg::compute(&f);
    let j = cfg.divergent_joins(BlockId(99), &[BlockId(98)], &[]);
    assert!(j.sync.is_empty() && j.loop_exits.is_empty());
    let j = cfg.divergent_joins(id(&f, "A"), &[BlockId(1234)], &[id(&f, "B")]);
    assert!(j.sync.is_empty());
    let f = build(&[
        ("e", &["a", "b"]),
        ("a", &["b"]),
        ("b", &["a", "x"]),
        ("x", &[]),
    ]);
    let _ = joins(&f, "e");
    let _ = joins(&f, "b");
}
