//! Kernels the pipeline's tests share.

use std::path::{Path, PathBuf};

/// The `.cl` files of a corpus directory of the repository, sorted.
pub fn corpus(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cl"))
        .collect();
    files.sort();
    files
}

/// A kernel named `name` whose branches no precondition settles
/// (conditions mixing products and remainders of the id with
/// parameters): inference stops each at its target budget and the file
/// at its file budget.
pub fn unsettled(name: &str) -> String {
    format!(
        "
__kernel void {name}(__global const int *in, __global int *out, int n, int m, int s)
{UNSETTLED_BODY}"
    )
}

const UNSETTLED_BODY: &str = r#"{
    int x = get_global_id(0);
    int acc = in[x];
    if ((x * n + m) % 3 == (x / 5) % 7)
        acc += in[(x * s) % n];
    if ((x / (s | 1)) % 5 == m)
        acc -= n;
    else
        acc += m;
    if ((x * x + n) % 7 < (x / 3) % 4)
        acc ^= in[(x * 5) % n];
    if ((acc % 5) == (x % 3))
        out[(x * m) % n] = acc;
    else
        out[x] = acc - 1;
}
"#;
