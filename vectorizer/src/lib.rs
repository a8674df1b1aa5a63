//! The lanes IR, its analyses (shapes, control divergence) and transforms.
//! For now: the SIMD targets and their widths.

pub mod target;
