//! Versioning on inferred preconditions.
use lanes_frontend::unit::CheckedUnit;
use smol_str::SmolStr;

use super::Options;

#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    pub kernel: SmolStr,
    pub line: u32,
    pub condition: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Specialization {
    pub text: String,
    pub applied: Vec<Applied>,
}

pub fn specialize(unit: &CheckedUnit, opts: &Options) -> Specialization {
    let _ = opts;
    Specialization {
        text: unit.sources.get(unit.main).text.to_string(),
        applied: Vec::new(),
    }
}
