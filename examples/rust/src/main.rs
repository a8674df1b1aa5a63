//! Runs two kernels through their generated bindings and compares them
//! with plain Rust loops: saxpy (1-D) and a transpose (2-D).

mod saxpy {
    include!(concat!(env!("OUT_DIR"), "/saxpy.rs"));
}
mod transpose {
    include!(concat!(env!("OUT_DIR"), "/transpose.rs"));
}

use std::process::ExitCode;

fn main() -> ExitCode {
    let n = 1000;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut y: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let mut expected = y.clone();
    for i in 0..n {
        expected[i] += 2.0 * x[i];
    }
    saxpy::saxpy(n as i32, 2.0, &x, &mut y, &saxpy::Range::d1(n)).expect("saxpy");
    if y != expected {
        println!(
            "saxpy: expected {:?}..., got {:?}...",
            &expected[..4],
            &y[..4]
        );
        return ExitCode::FAILURE;
    }

    // The bindings refuse a buffer shorter than the range reaches.
    let mut short = vec![0.0f32; n - 1];
    match saxpy::saxpy(n as i32, 2.0, &x, &mut short, &saxpy::Range::d1(n)) {
        Err(e @ saxpy::Error::TooShort { .. }) => println!("refused: {e}"),
        other => {
            println!("saxpy on a short buffer: expected Error::TooShort, got {other:?}");
            return ExitCode::FAILURE;
        }
    }

    let (width, height) = (37usize, 23usize);
    let a: Vec<f32> = (0..width * height).map(|i| i as f32 * 0.5).collect();
    let mut b = vec![0.0f32; width * height];
    let range = transpose::Range::d2(width, height);
    transpose::transpose(&mut b, &a, width as i32, height as i32, &range).expect("transpose");
    for y in 0..height {
        for x in 0..width {
            let want = a[y * width + x];
            if b[x * height + y] != want {
                println!(
                    "transpose: expected {want} at ({x}, {y}), got {}",
                    b[x * height + y]
                );
                return ExitCode::FAILURE;
            }
        }
    }
    println!("saxpy: {n} values ok; transpose: {width}x{height} ok");
    ExitCode::SUCCESS
}
