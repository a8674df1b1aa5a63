//! The lanes IR, its analyses (shapes, control divergence) and transforms.

pub mod ir;
pub mod target;
