use super::*;
use crate::ir::print::{print, Plain};

const SMALL: &str = "kernel @k(%0: ptr(global) a, %1: i32 n) {
bb0.entry: ; entry
  %2 = get_global_id i64(i32 0)
  %3 = trunc i64 %2 to i32
  %4 = cmp slt i32 %3, %1
  br %4, bb1.if.then, bb2.if.end
bb1.if.then:
  %5 = mul i64 %2, i64 4
  %6 = ptradd %0, %5
  %7 = load f32 %6, align 4
  %8 = fma f32(%7, f32 2.0, f32 -0.5)
  store f32 %8, %6, align 4
  br bb2.if.end
bb2.if.end:
  ret
}
";

fn error(text: &str) -> String {
    parse_function(text)
        .map(|p| panic!("read:\n{}", print(&p.func, &Plain)))
        .unwrap_err()
        .to_string()
}

#[test]
fn reads_what_it_prints() {
    let p = parse_function(SMALL).expect("reads");
    assert_eq!(print(&p.func, &Plain), SMALL);
    assert_eq!(p.func.ty(ValueId(6)), Ty::Ptr(AddressSpace::Global));
    assert_eq!(p.func.entry, BlockId(0));
    assert_eq!(crate::ir::verify::verify(&p.func), Ok(()));
}

#[test]
fn declarations_and_strings() {
    let text = "kernel @k(%0: ptr(global) out) {
  ; @table = constant [16 bytes]
  ; @local.tile = local [256 bytes, align 16]
bb0.entry: ; entry
  %1 = load i32 @table, align 4
  store i32 %1, @local.tile, align 4
  barrier local|global
  %2 = printf i32 \"%d \\\"x\\\"\\n\"(%1)
  ret
}
";
    let p = parse_function(text).expect("reads");
    assert_eq!(print(&p.func, &Plain), text);
    assert_eq!(p.func.locals[0].size, 256);
    assert_eq!(p.func.globals[0].bytes.len(), 16);
}

#[test]
fn errors_say_line_and_column() {
    let unknown = SMALL.replace("%5 = mul", "%5 = mull");
    assert_eq!(error(&unknown), "8:8: unknown instruction `mull`");
    let undefined = SMALL.replace("store f32 %8", "store f32 %9");
    assert_eq!(error(&undefined), "12:13: %9 is not defined");
    let label = SMALL.replace("br bb2.if.end\nbb2", "br bb2.if.ed\nbb2");
    assert_eq!(
        error(&label),
        "13:6: block bb2 is labelled `if.end`, not `if.ed`"
    );
    let ty = SMALL.replace("cmp slt i32 %3", "cmp slt i64 %3");
    assert_eq!(error(&ty), "5:20: %3 has type i32, not i64");
    let twice = SMALL.replace("%7 = load", "%6 = load");
    assert_eq!(error(&twice), "10:3: %6 is defined twice (first at line 9)");
    let order = SMALL.replace("bb2.if.end:", "bb3.if.end:");
    assert_eq!(
        error(&order),
        "14:1: expected block bb2 (blocks are numbered in order), found `bb3`"
    );
    let missing = SMALL.replace("i64 4\n", "\n");
    assert_eq!(
        error(&missing),
        "8:20: expected an operand (`%N`, a constant such as `i32 4`, `@name`), found end of line"
    );
    let literal = SMALL.replace("f32 2.0", "f32 two");
    assert_eq!(
        error(&literal),
        "11:24: expected a number of type f32, found `two`"
    );
    let unclosed = SMALL.replace("}\n", "");
    assert_eq!(
        error(&unclosed),
        "15:1: expected `}` at the end of the function, found the end of the text"
    );
    assert_eq!(
        error("kernel @k() {\nbb0.entry: ; entry\n  ret\n}\n  %3 = ret\n"),
        "5:3: expected `kernel @name(...) {`, found `%`"
    );
}

#[test]
fn unroll_hints_on_loop_headers() {
    let text = "kernel @k(%0: ptr(global) a, %1: i32 n) {
bb0.entry: ; entry
  br bb1.for.cond
bb1.for.cond: ; unroll 4
  %2 = phi i32 [bb0.entry: i32 0], [bb2.for.body: %3]
  %3 = add i32 %2, i32 1
  %4 = cmp slt i32 %3, %1
  br %4, bb2.for.body, bb3.do.body
bb2.for.body:
  br bb1.for.cond
bb3.do.body: ; nounroll ; a note
  br %4, bb3.do.body, bb4.end
bb4.end:
  ret
}
";
    let p = parse_function(text).expect("reads");
    assert_eq!(print(&p.func, &Plain), text.replace(" ; a note", ""));
    assert_eq!(p.func.blocks[1].unroll, Some(crate::ir::Unroll::Count(4)));
    assert_eq!(p.func.blocks[3].unroll, Some(crate::ir::Unroll::Disable));
    assert_eq!(
        p.annotations.blocks.get(&BlockId(3)).map(|a| a.0.as_str()),
        Some("a note")
    );
    for (hint, u) in [
        ("unroll", crate::ir::Unroll::Enable),
        ("unroll full", crate::ir::Unroll::Full),
    ] {
        let p = parse_function(&text.replace("unroll 4", hint)).expect("reads");
        assert_eq!(p.func.blocks[1].unroll, Some(u));
        assert_eq!(
            print(&p.func, &Plain),
            text.replace("unroll 4", hint).replace(" ; a note", "")
        );
    }
}
