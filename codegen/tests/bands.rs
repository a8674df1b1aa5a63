//! `k_groups` walks the work-groups of a kernel without barriers, loops
//! and work-group memory band by band, global row by global row
//! (`codegen/src/abi.rs`, `bands`): every work-item of `[first, last)`
//! runs once, with its own ids, also when the slices a caller splits the
//! launch into start and end inside a band, the last work-groups of a
//! dimension are smaller, and a slice is empty or reversed. The ids each
//! work-item sees and how often it ran are compared with the
//! interpreter's, on every target this CPU runs.
//!
//! A kernel that reads only global ids along dimension 0 runs each row of
//! a band as one loop over its SIMD groups when W divides the local size
//! (`whole_rows`); `global_ids` checks that walk on the same ranges, with
//! local sizes W divides and does not, and global offsets.

mod common;

use common::*;
use lanes_vectorizer::interp::NdRange;

const SRC: &str = r#"
__kernel void ids(__global int *group, __global int *local_id, __global int *size,
                  __global int *runs)
{
    size_t i = ((get_global_id(2) - get_global_offset(2)) * get_global_size(1)
                + get_global_id(1) - get_global_offset(1)) * get_global_size(0)
               + get_global_id(0) - get_global_offset(0);
    group[i] = (int)(get_group_id(0) + 100 * get_group_id(1) + 10000 * get_group_id(2));
    local_id[i] = (int)(get_local_id(0) + 100 * get_local_id(1) + 10000 * get_local_id(2));
    size[i] = (int)(get_local_size(0) + 100 * get_local_size(1) + 10000 * get_local_size(2));
    runs[i] = runs[i] + 1;
}
"#;

/// Reads no local or group id nor local size along dimension 0.
const GLOBAL_SRC: &str = r#"
__kernel void global_ids(__global int *id, __global int *lane, __global int *rows,
                         __global int *runs)
{
    size_t i = ((get_global_id(2) - get_global_offset(2)) * get_global_size(1)
                + get_global_id(1) - get_global_offset(1)) * get_global_size(0)
               + get_global_id(0) - get_global_offset(0);
    id[i] = (int)(get_global_id(0) + 1000 * get_global_id(1) + 100000 * get_global_id(2));
    lane[i] = (int)get_sub_group_local_id();
    rows[i] = (int)(get_local_id(1) + 100 * get_group_id(1) + 10000 * get_local_size(2));
    runs[i] = runs[i] + 1;
}
"#;

/// A range and the slices `[first, last)` of work-groups it runs in.
fn cases() -> Vec<(NdRange, Vec<(usize, usize)>)> {
    let three_d = NdRange {
        work_dim: 3,
        global_offset: [0; 3],
        global_size: [19, 5, 3],
        local_size: [8, 2, 2],
    };
    vec![
        // 3 x 3 work-groups, the last of each dimension smaller; slices
        // that start and end inside bands, an empty and a reversed one.
        (
            NdRange::new_2d([37, 11], [16, 4]),
            vec![(0, 2), (2, 7), (5, 5), (7, 2), (7, usize::MAX)],
        ),
        // One band of work-groups.
        (NdRange::new_2d([45, 3], [16, 3]), vec![(1, 3), (0, 1)]),
        // 3 x 3 x 2 work-groups: bands over dimensions 1 and 2.
        (three_d, vec![(0, 4), (4, 13), (13, 100)]),
        // Work-groups of one SIMD group or less.
        (NdRange::new_2d([13, 6], [4, 1]), vec![(0, 9), (9, 24)]),
        // Local size chosen by lanes.
        (
            NdRange::new_2d([70, 3], [0, 0]),
            vec![(0, 1), (1, usize::MAX)],
        ),
        // 4 work-groups of 48 columns (3 x 16) in a band row, the last of
        // them 13 wide; slices inside bands.
        (
            NdRange::new_2d([157, 5], [48, 2]),
            vec![(0, 3), (3, 6), (6, 9), (9, 12)],
        ),
        // A local size no W above 4 divides, and a global offset.
        (
            NdRange {
                work_dim: 2,
                global_offset: [5, 3, 0],
                global_size: [60, 4, 1],
                local_size: [12, 2, 1],
            },
            vec![(0, 4), (4, 10)],
        ),
        // A global offset with work-groups of 32 columns.
        (
            NdRange {
                work_dim: 2,
                global_offset: [7, 2, 0],
                global_size: [100, 6, 1],
                local_size: [32, 3, 1],
            },
            vec![(1, 5), (0, 1), (5, 8)],
        ),
    ]
}

fn run_target(target: &str, src: &str, kernel: &str) {
    let Some((spec, unit)) = runnable_unit(target, "bands.cl", src) else {
        return;
    };
    let (scalar, kc, jit) = compile_one(&unit, kernel, &spec);
    let launch = jit.launcher(kernel).expect("launcher");
    // `ids` keeps the walk work-group by work-group; `global_ids` takes
    // the one loop per band row where W divides the local size.
    assert_eq!(
        lanes_codegen::reads_column_geometry(&kc.vf.func),
        kernel == "ids",
        "{kernel}"
    );
    for (range, slices) in cases() {
        let items: u64 = range.global_size.iter().product();
        let mut args: Vec<Arg> = (0..4)
            .map(|_| Arg::Buffer(Buf::new(4 * items as usize), Elem::Int(4)))
            .collect();
        // The interpreter takes a local size of 0 as the one lanes chooses.
        let mut chosen = range;
        if chosen.local_size[0] == 0 {
            let w = spec.width as u64;
            chosen.local_size = [w * range.global_size[0].div_ceil(w).min(8), 1, 1];
        }
        let want = run_interp(&scalar, &kc, &args, &chosen, spec.width)
            .unwrap_or_else(|e| panic!("interpreter: {e}"));
        let ptrs: Vec<*mut u8> = args
            .iter_mut()
            .map(|a| match a {
                Arg::Buffer(b, _) => b.as_mut_ptr(),
                _ => unreachable!(),
            })
            .collect();
        let slots: Vec<Box<*mut u8>> = ptrs.iter().map(|&p| Box::new(p)).collect();
        let argv: Vec<*mut std::ffi::c_void> = slots
            .iter()
            .map(|s| &**s as *const *mut u8 as *mut _)
            .collect();
        let lr = lanes_range(&range);
        for &(first, last) in &slices {
            // SAFETY: four int buffers of one element per work-item.
            let rc = unsafe { launch(argv.as_ptr(), &lr, first, last) };
            assert_eq!(rc, 0, "{target} {range:?} [{first}, {last})");
        }
        let got = |i: usize| match &args[i] {
            Arg::Buffer(b, _) => Some(b.bytes()),
            _ => None,
        };
        if let Some((name, d)) = first_difference(&kc, &args, &want, got) {
            panic!("{target} {range:?} slices {slices:?}: buffer `{name}`: {d}");
        }
    }
}

#[test]
fn banded_walk_runs_every_work_item_once_with_its_ids() {
    for t in common::TEST_TARGETS {
        run_target(t, SRC, "ids");
    }
}

#[test]
fn band_rows_of_a_kernel_reading_global_ids_run_as_one_loop() {
    for t in common::TEST_TARGETS {
        run_target(t, GLOBAL_SRC, "global_ids");
    }
}
