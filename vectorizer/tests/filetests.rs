//! The per-pass file tests of `vectorizer/tests/filetests/<pass>/`: each
//! file names the passes to run on its input and checks their output (the
//! format: `filetest/mod.rs`, docs: `docs/testing.md`).

mod filetest;

#[test]
fn vectorizer_file_tests() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
    filetest::run_all(&dir, filetest::vectorizer_pass);
}
