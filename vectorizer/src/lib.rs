//! The lanes IR, its analyses (shapes, control divergence) and transforms.

pub mod cfg;
pub mod divergence;
pub mod half;
pub mod idle_tail;
pub mod interp;
pub mod ir;
pub mod lower;
pub mod precond;
pub mod promote;
pub mod report;
pub mod rows;
pub mod schedule;
pub mod shape;
pub mod target;
pub mod vectorize;
