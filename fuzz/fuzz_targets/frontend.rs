//! Preprocessor + parser + type checker on arbitrary bytes: no panic, no hang,
//! no stack overflow. `#include` reads nothing from disk, so runs are
//! reproducible: every include is "not found" except `"self.h"`, which is the
//! input itself (exercising include depth limits).
#![no_main]

use std::path::Path;

use lanes_frontend::preprocess::{FileLoader, PreprocessOptions};
use lanes_frontend::source::SourceText;
use lanes_frontend::unit::check_text;
use libfuzzer_sys::fuzz_target;

struct Loader<'a>(&'a str);

impl FileLoader for Loader<'_> {
    fn read(&self, path: &Path) -> std::io::Result<SourceText> {
        if path.file_name().is_some_and(|n| n == "self.h") {
            Ok(self.0.to_string().into())
        } else {
            Err(std::io::ErrorKind::NotFound.into())
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let text = lanes_frontend::source::decode_source(data).text;
    let opts = PreprocessOptions { width: 8, ..Default::default() };
    let unit = check_text("fuzz.cl", Some("/fuzz/fuzz.cl".into()), &text, &opts, &Loader(&text));
    std::hint::black_box(unit);
});
