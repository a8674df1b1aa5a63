//! The machine's limits, measured in the same run as the kernels, and each
//! kernel's share of the one that bounds it (a roofline).
//!
//! Two reference points on the pinned core: the STREAM triad bandwidth (the
//! C triad of bench/kernels/c/stream_triad.c, as the gcc column builds it,
//! on three arrays of 128 MiB: 12 bytes per element, no write-allocate
//! traffic counted, as STREAM counts) and the FMA peak (bench/peak/fma_peak.c:
//! independent chains of 256-bit multiply-adds). A kernel whose floating-point
//! operations per byte exceed the machine's balance (peak / bandwidth) is
//! bounded by the FMA peak, any other by the bandwidth; its share is then
//! GFLOP/s over the peak or GB/s over the bandwidth. Its bytes are the
//! compulsory traffic: every buffer element it reads read once, every element
//! it writes written once; its operations are counted from the kernel's source
//! (an FMA is 2, `sqrt`/`rsqrt` 1, as the usual counts do).

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use super::cc::CLib;
use super::problems::{self, Work};

/// What bounds a kernel on this machine.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    Stream,
    Fma,
}

/// The machine's limits on one core.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// GB/s of the C STREAM triad (10^9 bytes per second).
    pub stream_gbs: Option<f64>,
    /// GFLOP/s of the FMA peak (median of fma_peak.c's runs).
    pub fma_gflops: Option<f64>,
}

impl Limits {
    /// The better of two measurements of each limit (what the machine can
    /// do; load from other processes only lowers a measurement).
    pub fn best(a: Limits, b: Limits) -> Limits {
        let max = |x: Option<f64>, y: Option<f64>| match (x, y) {
            (Some(x), Some(y)) => Some(x.max(y)),
            (x, y) => x.or(y),
        };
        Limits {
            stream_gbs: max(a.stream_gbs, b.stream_gbs),
            fma_gflops: max(a.fma_gflops, b.fma_gflops),
        }
    }

    /// The limit that bounds `work` (the roofline: the FMA peak when the
    /// kernel's operations per byte exceed peak / bandwidth).
    pub fn bound(&self, work: &Work) -> Option<Bound> {
        let bw = self.stream_gbs?;
        let peak = self.fma_gflops?;
        if work.bytes <= 0.0 {
            return (work.flops > 0.0).then_some(Bound::Fma);
        }
        Some(if work.flops / work.bytes > peak / bw {
            Bound::Fma
        } else {
            Bound::Stream
        })
    }

    /// The share (0..) of the bounding limit a run of `ms` milliseconds reaches.
    pub fn share(&self, work: &Work, ms: f64) -> Option<(f64, Bound)> {
        let bound = self.bound(work)?;
        let secs = ms * 1e-3;
        Some(match bound {
            Bound::Stream => (work.bytes / secs * 1e-9 / self.stream_gbs?, bound),
            Bound::Fma => (work.flops / secs * 1e-9 / self.fma_gflops?, bound),
        })
    }
}

/// The table cell: "71% / 65% STREAM" (lanes / gcc, one thread).
pub fn show_shares(
    limits: &Limits,
    work: Option<&Work>,
    lanes_ms: Option<f64>,
    gcc_ms: Option<f64>,
) -> String {
    let Some(work) = work else {
        return "—".into();
    };
    let Some(bound) = limits.bound(work) else {
        return "—".into();
    };
    let pct = |ms: Option<f64>| {
        ms.and_then(|ms| limits.share(work, ms))
            .map_or("—".to_string(), |(s, _)| format!("{:.0}%", s * 100.0))
    };
    let name = match bound {
        Bound::Stream => "STREAM",
        Bound::Fma => "FMA",
    };
    format!("{} / {} {name}", pct(lanes_ms), pct(gcc_ms))
}

/// Measures both limits on the core this thread is pinned to. `scratch` is a
/// directory for the FMA program.
pub fn measure(clib: Option<&CLib>, peak_src: &Path, scratch: &Path) -> (Limits, Vec<String>) {
    let mut notes = Vec::new();
    let stream_gbs = match clib.map(stream_triad_gbs) {
        Some(Ok(v)) => Some(v),
        Some(Err(e)) => {
            notes.push(format!("STREAM reference: {e}"));
            None
        }
        None => None,
    };
    let fma_gflops = match fma_peak_gflops(peak_src, scratch) {
        Ok(v) => Some(v),
        Err(e) => {
            notes.push(format!("FMA peak reference: {e}"));
            None
        }
    };
    (
        Limits {
            stream_gbs,
            fma_gflops,
        },
        notes,
    )
}

/// The C triad on one thread: median of 7 runs after 2 warm-ups.
fn stream_triad_gbs(clib: &CLib) -> Result<f64, String> {
    let p = problems::build("stream_triad").expect("stream_triad is a benchmark");
    let bytes = p
        .limit
        .as_ref()
        .map(|w| w.bytes)
        .expect("the triad's traffic");
    let mut inst = clib.instance(&p)?;
    drop(p);
    let mut times = Vec::new();
    for round in 0..9 {
        let t = Instant::now();
        inst.run(1)?;
        if round >= 2 {
            times.push(t.elapsed().as_secs_f64());
        }
    }
    times.sort_by(f64::total_cmp);
    Ok(bytes / times[times.len() / 2] * 1e-9)
}

/// Builds and runs bench/peak/fma_peak.c (AVX2 + FMA) as a child process,
/// which inherits this thread's CPU affinity; its median GFLOP/s.
fn fma_peak_gflops(src: &Path, scratch: &Path) -> Result<f64, String> {
    if !cfg!(target_arch = "x86_64") {
        return Err("needs x86-64".into());
    }
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let flags = cpuinfo
        .lines()
        .find(|l| l.starts_with("flags"))
        .unwrap_or("");
    if !flags.split_whitespace().any(|f| f == "avx2")
        || !flags.split_whitespace().any(|f| f == "fma")
    {
        return Err("this CPU has no AVX2 + FMA".into());
    }
    std::fs::create_dir_all(scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let exe = scratch.join("fma_peak");
    let out = Command::new("gcc")
        .args(["-O2", "-mavx2", "-mfma", "-o"])
        .arg(&exe)
        .arg(src)
        .output()
        .map_err(|e| format!("gcc: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "gcc failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let out = Command::new(&exe)
        .output()
        .map_err(|e| format!("{}: {e}", exe.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    parse_fma_peak(&text).ok_or_else(|| format!("unexpected output: {}", text.trim()))
}

/// "FMA peak, one thread: median 57.6 GFLOP/s, best ..." -> 57.6.
pub fn parse_fma_peak(text: &str) -> Option<f64> {
    let rest = text.split("median ").nth(1)?;
    rest.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MACHINE: Limits = Limits {
        stream_gbs: Some(20.0),
        fma_gflops: Some(100.0),
    };

    #[test]
    fn the_bound_follows_the_machine_balance() {
        // Balance: 100 GFLOP/s over 20 GB/s = 5 operations per byte.
        let triad = Work {
            bytes: 12e6,
            flops: 2e6,
        };
        let gemm = Work {
            bytes: 4e6,
            flops: 268e6,
        };
        assert_eq!(MACHINE.bound(&triad), Some(Bound::Stream));
        assert_eq!(MACHINE.bound(&gemm), Some(Bound::Fma));
        let copy = Work {
            bytes: 8e6,
            flops: 0.0,
        };
        assert_eq!(MACHINE.bound(&copy), Some(Bound::Stream));
        assert_eq!(Limits::default().bound(&gemm), None);
    }

    #[test]
    fn shares_are_rates_over_the_limit() {
        // 12 MB in 1 ms is 12 GB/s: 60% of 20 GB/s.
        let triad = Work {
            bytes: 12e6,
            flops: 2e6,
        };
        let (s, b) = MACHINE.share(&triad, 1.0).unwrap();
        assert_eq!(b, Bound::Stream);
        assert!((s - 0.6).abs() < 1e-12);
        // 268 MFLOP in 5.36 ms is 50 GFLOP/s: half the peak.
        let gemm = Work {
            bytes: 4e6,
            flops: 268e6,
        };
        let (s, b) = MACHINE.share(&gemm, 5.36).unwrap();
        assert_eq!(b, Bound::Fma);
        assert!((s - 0.5).abs() < 1e-9);
        assert_eq!(
            show_shares(&MACHINE, Some(&triad), Some(1.0), Some(2.0)),
            "60% / 30% STREAM"
        );
        assert_eq!(show_shares(&MACHINE, None, Some(1.0), Some(2.0)), "—");
        assert_eq!(
            show_shares(&MACHINE, Some(&gemm), Some(5.36), None),
            "50% / — FMA"
        );
    }

    #[test]
    fn best_takes_the_higher_measurement() {
        let a = Limits {
            stream_gbs: Some(15.0),
            fma_gflops: None,
        };
        let b = Limits {
            stream_gbs: Some(18.0),
            fma_gflops: Some(90.0),
        };
        let m = Limits::best(a, b);
        assert_eq!(m.stream_gbs, Some(18.0));
        assert_eq!(m.fma_gflops, Some(90.0));
    }

    #[test]
    fn fma_peak_output_is_read() {
        let line =
            "FMA peak, one thread: median 57.6 GFLOP/s, best 67.5 GFLOP/s (15 runs; checksum 1)\n";
        assert_eq!(parse_fma_peak(line), Some(57.6));
        assert_eq!(parse_fma_peak("nothing"), None);
    }

    /// The counts of a few kernels (small problems: the others allocate
    /// hundreds of MiB).
    #[test]
    fn kernels_state_their_work() {
        let work = |n: &str| problems::build(n).unwrap().limit;
        let gemm = work("gemm").unwrap();
        assert_eq!(gemm.flops, (2 * 512 * 512 * 512 + 3 * 512 * 512) as f64);
        assert_eq!(gemm.bytes, (4 * (512 * 512 * 4)) as f64);
        let t = work("transpose").unwrap();
        assert_eq!((t.bytes, t.flops), ((8 * 4096 * 2048) as f64, 0.0));
        assert!(work("binary_search").is_none() && work("mandelbrot").is_none());
    }
}
