//! IEEE 754 binary16 (`half`) conversions, bit-exact: `half` is a storage
//! format in OpenCL C without `cl_khr_fp16`, so only conversions exist.
//!
//! The narrowing conversions round once, straight from the source precision
//! (no double rounding through `f32` for `f64`), with the same integer
//! algorithm the code generator emits: normal results round by adding
//! half an ulp minus one plus the ulp's low bit (ties to even), subnormal
//! results by one float addition of a magic constant whose ulp is the
//! smallest `half` subnormal. NaNs keep their sign and the top mantissa bits
//! and become quiet (as x86's F16C and ARM do).

/// The parameters of a source format.
struct Format {
    mant_bits: u32,
    exp_bias: i64,
}

const F32: Format = Format {
    mant_bits: 23,
    exp_bias: 127,
};
const F64: Format = Format {
    mant_bits: 52,
    exp_bias: 1023,
};

/// `half` bits of the magnitude `a` (the bits of a non-negative float of
/// format `fmt`); `add_magic` adds the float `2^(mant_bits - 24)` to the
/// float of bits `a` and returns the bits of the sum.
fn narrow(a: u64, fmt: &Format, add_magic: impl Fn(u64) -> u64) -> u16 {
    let m = fmt.mant_bits;
    let drop = m - 10;
    let inf = ((2 * fmt.exp_bias + 1) as u64) << m;
    // 2^16: the first magnitude that overflows whatever the rounding.
    let overflow = ((fmt.exp_bias + 16) as u64) << m;
    // 2^-14: the smallest normal half.
    let min_normal = ((fmt.exp_bias - 14) as u64) << m;
    if a >= overflow {
        if a > inf {
            // NaN: quiet, top mantissa bits kept.
            return 0x7e00 | ((a >> drop) & 0x3ff) as u16;
        }
        return 0x7c00;
    }
    if a < min_normal {
        let magic = ((fmt.exp_bias + i64::from(m) - 24) as u64) << m;
        return (add_magic(a) - magic) as u16;
    }
    let odd = (a >> drop) & 1;
    let rebias = ((15 - fmt.exp_bias) << m) as u64;
    let r = a
        .wrapping_add(rebias)
        .wrapping_add((1 << (drop - 1)) - 1)
        .wrapping_add(odd);
    (r >> drop) as u16
}

/// The nearest `half` (ties to even) of an `f32`, as bits.
pub fn f32_to_half_bits(x: f32) -> u16 {
    let b = u64::from(x.to_bits());
    let sign = ((b >> 16) & 0x8000) as u16;
    let a = b & 0x7fff_ffff;
    sign | narrow(a, &F32, |a| {
        (f32::from_bits(a as u32) + 0.5).to_bits() as u64
    })
}

/// The nearest `half` (ties to even) of an `f64`, as bits.
pub fn f64_to_half_bits(x: f64) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 48) & 0x8000) as u16;
    let a = b & 0x7fff_ffff_ffff_ffff;
    sign | narrow(a, &F64, |a| (f64::from_bits(a) + 268_435_456.0).to_bits())
}

/// The value of `half` bits as an `f32` (exact; NaN payloads kept).
pub fn half_bits_to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let em = u32::from(h & 0x7fff);
    let mag = if em >= 0x7c00 {
        (em << 13) | 0x7f80_0000
    } else {
        // The bits shifted into place are the value scaled by 2^-112; one
        // exact multiplication rescales normals and subnormals alike.
        (f32::from_bits(em << 13) * f32::from_bits(0x7780_0000)).to_bits()
    };
    f32::from_bits(sign | mag)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// All halves, ordered by value, as (bits, value) for finite ones.
    fn finite_halves() -> Vec<(u16, f64)> {
        let mut v: Vec<(u16, f64)> = (0..=0xffffu32)
            .map(|b| b as u16)
            .filter(|b| b & 0x7c00 != 0x7c00)
            .map(|b| (b, f64::from(half_bits_to_f32(b))))
            .collect();
        v.sort_by(|a, b| a.1.total_cmp(&b.1));
        v
    }

    #[test]
    fn widening_known_values() {
        assert_eq!(half_bits_to_f32(0x3c00), 1.0);
        assert_eq!(half_bits_to_f32(0xc000), -2.0);
        assert_eq!(half_bits_to_f32(0x7bff), 65504.0);
        assert_eq!(half_bits_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(half_bits_to_f32(0x03ff), 1023.0 * 2f32.powi(-24));
        assert_eq!(half_bits_to_f32(0x0400), 2f32.powi(-14));
        assert_eq!(half_bits_to_f32(0x7c00), f32::INFINITY);
        assert_eq!(half_bits_to_f32(0xfc00), f32::NEG_INFINITY);
        assert_eq!(half_bits_to_f32(0x8000).to_bits(), 0x8000_0000);
        assert!(half_bits_to_f32(0x7e01).is_nan());
        assert_eq!(half_bits_to_f32(0x7e01).to_bits(), 0x7fc0_2000);
    }

    #[test]
    fn every_half_round_trips() {
        for b in 0..=0xffffu32 {
            let b = b as u16;
            let f = half_bits_to_f32(b);
            if f.is_nan() {
                // Quieted, payload kept.
                assert_eq!(f32_to_half_bits(f), b | 0x0200, "{b:#x}");
                assert_eq!(f64_to_half_bits(f64::from(f)), b | 0x0200, "{b:#x}");
            } else {
                assert_eq!(f32_to_half_bits(f), b, "{b:#x}");
                assert_eq!(f64_to_half_bits(f64::from(f)), b, "{b:#x}");
            }
        }
    }

    /// The nearest half by search, ties to the even mantissa.
    fn nearest(x: f64, halves: &[(u16, f64)]) -> u16 {
        if x.is_nan() {
            unreachable!()
        }
        let max = 65504.0;
        // Beyond max + half an ulp (2^16 - 16) the result is infinity.
        if x.abs() >= 65520.0 {
            return if x > 0.0 { 0x7c00 } else { 0xfc00 };
        }
        let i = halves.partition_point(|h| h.1 < x);
        let mut best = (u16::MAX, f64::INFINITY);
        for &(b, v) in &halves[i.saturating_sub(2)..(i + 2).min(halves.len())] {
            let d = (v - x).abs();
            if d < best.1 || (d == best.1 && b & 1 == 0 && best.0 & 1 == 1) {
                best = (b, d);
            }
        }
        assert!(x.abs() <= max + 16.0);
        // The sign of zero follows x.
        if best.0 & 0x7fff == 0 {
            return if x.is_sign_negative() { 0x8000 } else { 0 };
        }
        best.0
    }

    #[test]
    fn narrowing_rounds_to_nearest_even_once() {
        let halves = finite_halves();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut xs: Vec<f64> = Vec::new();
        // Midpoints between neighbours and points just beside them: the
        // cases a double rounding gets wrong.
        for w in halves.windows(2) {
            let mid = (w[0].1 + w[1].1) / 2.0;
            xs.extend([mid, mid.next_up(), mid.next_down(), w[0].1]);
        }
        for _ in 0..200_000 {
            let e = (next() % 40) as i32 - 30;
            let m = (next() >> 11) as f64 / (1u64 << 53) as f64;
            let s = if next() & 1 == 0 { 1.0 } else { -1.0 };
            xs.push(s * (1.0 + m) * 2f64.powi(e));
        }
        xs.extend([0.0, -0.0, 65519.99, 65520.0, 1e10, -1e-30, 2f64.powi(-25)]);
        for x in xs {
            let want = nearest(x, &halves);
            assert_eq!(f64_to_half_bits(x), want, "f64 {x:e}");
            let xf = x as f32;
            assert_eq!(
                f32_to_half_bits(xf),
                nearest(f64::from(xf), &halves),
                "f32 {xf:e}"
            );
        }
        assert_eq!(f64_to_half_bits(f64::INFINITY), 0x7c00);
        assert_eq!(f32_to_half_bits(f32::NEG_INFINITY), 0xfc00);
        assert_eq!(f64_to_half_bits(f64::NAN) & 0x7e00, 0x7e00);
    }
}
