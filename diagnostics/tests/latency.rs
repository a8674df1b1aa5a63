//! Editor latency on a large file (5,000 lines, 100 kernels): time from a
//! one-character edit to fresh diagnostics, and hover and inlay-hint times.
//! Printed, not asserted (run with `--nocapture`; test builds are not
//! release builds, so the numbers are an upper bound). The benchmark of
//! record is in bench/.

use std::time::{Duration, Instant};

use lanes_db::{LanesDatabase, Settings};
use lanes_diagnostics::ide::diagnostics::diagnostics;
use lanes_diagnostics::ide::hover::hover;
use lanes_diagnostics::ide::inlay::inlay_hints;
use lanes_diagnostics::ide::TextRange;

fn big_file(kernels: usize) -> String {
    let mut s = String::from(
        "// latency.cl - a large generated file\n\n\
         float smooth_step(float a, float b, float t)\n{\n    float u = clamp((t - a) / (b - a), 0.0f, 1.0f);\n    return u * u * (3.0f - 2.0f * u);\n}\n\n",
    );
    for k in 0..kernels {
        s.push_str(&format!(
            "// ---------------------------------------------------------------\n\
             // kernel {k}: a stencil with a clipped loop, a divergent branch\n\
             // and an indirect access.\n\
             // ---------------------------------------------------------------\n\
             __kernel void kernel_{k}(__global const float *in,\n\
             \x20                       __global float *out,\n\
             \x20                       __global const int *idx,\n\
             \x20                       int width,\n\
             \x20                       int radius)\n\
             {{\n\
             \x20   int x = get_global_id(0);\n\
             \x20   if (x >= width)\n\
             \x20       return;\n\
             \n\
             \x20   // the clipped neighbourhood\n\
             \x20   int left = max(0, x - radius);\n\
             \x20   int right = min(width - 1, x + radius);\n\
             \x20   float sum = 0.0f;\n\
             \x20   for (int i = left; i <= right; ++i)\n\
             \x20       sum += in[i] * {k}.0f;\n\
             \n\
             \x20   // an indirect read\n\
             \x20   float extra = in[idx[x]];\n\
             \x20   if (extra > 0.5f) {{\n\
             \x20       sum = sum * 0.5f;\n\
             \x20   }} else {{\n\
             \x20       sum = sum + extra;\n\
             \x20   }}\n\
             \n\
             \x20   // a uniform loop\n\
             \x20   float acc = 0.0f;\n\
             \x20   for (int j = 0; j < radius; ++j) {{\n\
             \x20       acc += in[j];\n\
             \x20       acc *= 0.25f;\n\
             \x20   }}\n\
             \n\
             \x20   float s = smooth_step(0.0f, 1.0f, sum + acc);\n\
             \x20   int q = x / 3;\n\
             \x20   float w = in[x];\n\
             \x20   w = w * 2.0f + 1.0f;\n\
             \x20   w = w - s;\n\
             \x20   w = fabs(w);\n\
             \x20   w = sqrt(w + 1.0f);\n\
             \x20   w = w * w;\n\
             \x20   out[x] = w + (float)q;\n\
             \x20   out[x] = out[x] * 0.5f;\n\
             \x20   out[x] = out[x] + 1.0f;\n\
             \x20   out[x] = out[x] - 1.0f;\n\
             }}\n\n"
        ));
    }
    s
}

fn pct(mut v: Vec<Duration>, p: f64) -> Duration {
    v.sort();
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i.min(v.len() - 1)]
}

#[test]
fn edit_to_diagnostics_on_a_large_file() {
    let text = big_file(100);
    let lines = text.lines().count();
    assert!(lines >= 5000, "{lines}");
    let mut db = LanesDatabase::new(Settings::for_target("avx2-i32x8").unwrap());
    let t = Instant::now();
    let file = db.set_file("/virtual/latency.cl", &text, 0);
    let first = diagnostics(&db, file);
    let open = t.elapsed();
    assert!(first.len() >= 300, "{}", first.len());

    let mut text = text;
    let mut edit = Vec::new();
    let mut hovers = Vec::new();
    let mut hints = Vec::new();
    for n in 0..40i32 {
        // A one-character edit inside a kernel: `w * 2.0f` -> `w * 3.0f`.
        let k = (n * 37) % 100;
        let anchor = format!("void kernel_{k}(");
        let a = text.find(&anchor).unwrap();
        let i = a + text[a..].find("w * ").unwrap() + 4;
        let digit = if &text[i..i + 1] == "2" { "3" } else { "2" };
        text.replace_range(i..i + 1, digit);

        let t = Instant::now();
        db.set_file("/virtual/latency.cl", &text, n + 1);
        let d = diagnostics(&db, file);
        edit.push(t.elapsed());
        assert_eq!(d.len(), first.len());

        // A hover and the hints of a screenful around the edit.
        let x = (a + text[a..].find("int x").unwrap() + 4) as u32;
        let t = Instant::now();
        assert!(hover(&db, file, x).is_some());
        hovers.push(t.elapsed());
        let t = Instant::now();
        let h = inlay_hints(&db, file, TextRange::new(a as u32, a as u32 + 2500));
        hints.push(t.elapsed());
        assert!(!h.is_empty());
    }
    println!(
        "latency on {lines} lines, 100 kernels (test profile): open {open:?}; edit->diagnostics p50 {:?} p95 {:?}; hover p50 {:?} p95 {:?}; inlay hints p50 {:?} p95 {:?}",
        pct(edit.clone(), 0.5),
        pct(edit, 0.95),
        pct(hovers.clone(), 0.5),
        pct(hovers, 0.95),
        pct(hints.clone(), 0.5),
        pct(hints, 0.95),
    );
}
