//! SIMD targets, named as ISPC names them (`avx2-i32x8`: ISA, mask element
//! size, gang width). The width is what the analyses need; the back end maps
//! the ISA to LLVM CPU features.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    Sse4,
    Avx2,
    Avx512Skx,
    Neon,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    pub name: &'static str,
    pub isa: Isa,
    /// Gang size: work-items per SIMD group (= OpenCL sub-group size).
    pub width: u32,
}

/// Every named target, in the order `lanes targets` lists them.
pub const TARGETS: &[Target] = &[
    Target {
        name: "sse4-i32x4",
        isa: Isa::Sse4,
        width: 4,
    },
    Target {
        name: "sse4-i32x8",
        isa: Isa::Sse4,
        width: 8,
    },
    Target {
        name: "avx2-i32x8",
        isa: Isa::Avx2,
        width: 8,
    },
    Target {
        name: "avx2-i32x16",
        isa: Isa::Avx2,
        width: 16,
    },
    Target {
        name: "avx512skx-x8",
        isa: Isa::Avx512Skx,
        width: 8,
    },
    Target {
        name: "avx512skx-x16",
        isa: Isa::Avx512Skx,
        width: 16,
    },
    Target {
        name: "neon-i32x4",
        isa: Isa::Neon,
        width: 4,
    },
];

impl Isa {
    pub fn description(self) -> &'static str {
        match self {
            Isa::Sse4 => "x86-64 SSE4.2",
            Isa::Avx2 => "x86-64 AVX2 + FMA",
            Isa::Avx512Skx => "x86-64 AVX-512 (Skylake-X: F, VL, BW, DQ, CD)",
            Isa::Neon => "AArch64 Advanced SIMD",
        }
    }

    /// Whether the ISA has fused multiply-add instructions (x86 FMA3 from
    /// AVX2 on, AArch64 always): what contraction is lowered for.
    pub fn has_fma(self) -> bool {
        !matches!(self, Isa::Sse4)
    }

    /// What lowering needs to know about code for this ISA.
    pub fn lowering(self) -> crate::lower::Options {
        crate::lower::Options {
            fma: self.has_fma(),
        }
    }

    /// Whether the machine running lanes can execute code for this ISA.
    pub fn runs_here(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                Isa::Sse4 => std::arch::is_x86_feature_detected!("sse4.2"),
                Isa::Avx2 => {
                    std::arch::is_x86_feature_detected!("avx2")
                        && std::arch::is_x86_feature_detected!("fma")
                }
                Isa::Avx512Skx => {
                    std::arch::is_x86_feature_detected!("avx512f")
                        && std::arch::is_x86_feature_detected!("avx512vl")
                        && std::arch::is_x86_feature_detected!("avx512bw")
                        && std::arch::is_x86_feature_detected!("avx512dq")
                }
                Isa::Neon => false,
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            self == Isa::Neon
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            false
        }
    }
}

impl Target {
    /// Looks a target up by name; `host` is the best target this machine runs.
    pub fn from_name(name: &str) -> Option<Target> {
        if name == "host" {
            return Some(Target::host());
        }
        TARGETS.iter().copied().find(|t| t.name == name)
    }

    /// The widest target whose ISA this machine executes: AVX-512 with 16
    /// lanes, else AVX2 with 8, else SSE4 with 4 (NEON with 4 on AArch64).
    pub fn host() -> Target {
        let pick = |name| TARGETS.iter().copied().find(|t| t.name == name);
        ["avx512skx-x16", "avx2-i32x8", "sse4-i32x4", "neon-i32x4"]
            .into_iter()
            .filter_map(pick)
            .find(|t| t.isa.runs_here())
            .unwrap_or(TARGETS[0])
    }

    /// The targets of a `--target` value (`target` in lanes.toml): one name
    /// (`host` included), or a comma-separated list of named targets that
    /// `lanes build` compiles into one object choosing among them at run
    /// time. A list holds at most one target per instruction set (the
    /// object runs the best instruction set the CPU has, so two widths of
    /// one would never both be used) and one architecture. Errors name the
    /// offending entry.
    pub fn parse_list(spec: &str) -> Result<Vec<Target>, String> {
        let known = || Target::names().join(", ");
        if !spec.contains(',') {
            return Target::from_name(spec.trim())
                .map(|t| vec![t])
                .ok_or_else(|| format!("unknown target `{spec}` (known: {})", known()));
        }
        let mut out: Vec<Target> = Vec::new();
        for entry in spec.split(',').map(str::trim) {
            if entry.is_empty() {
                return Err(format!("empty entry in the target list `{spec}`"));
            }
            if entry == "host" {
                return Err(format!(
                    "`host` cannot be part of the target list `{spec}`: list named targets (`lanes targets`)"
                ));
            }
            let Some(t) = TARGETS.iter().copied().find(|t| t.name == entry) else {
                return Err(format!(
                    "unknown target `{entry}` in the list `{spec}` (known: {})",
                    known()
                ));
            };
            if let Some(same) = out.iter().find(|o| o.isa == t.isa) {
                return Err(format!(
                    "`{entry}` and `{}` in the target list `{spec}` use the same instruction set: list one target per instruction set",
                    same.name
                ));
            }
            if out
                .iter()
                .any(|o| (o.isa == Isa::Neon) != (t.isa == Isa::Neon))
            {
                return Err(format!(
                    "`{entry}` in the target list `{spec}` is for another architecture than `{}`",
                    out[0].name
                ));
            }
            out.push(t);
        }
        Ok(out)
    }

    /// Names accepted by `--target`, for error messages.
    pub fn names() -> Vec<&'static str> {
        TARGETS
            .iter()
            .map(|t| t.name)
            .chain(std::iter::once("host"))
            .collect()
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_matches_name() {
        for t in TARGETS {
            let digits: String = t
                .name
                .chars()
                .rev()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            let w: u32 = digits.chars().rev().collect::<String>().parse().unwrap();
            assert_eq!(w, t.width, "{}", t.name);
        }
    }

    #[test]
    fn lookup() {
        assert_eq!(Target::from_name("avx2-i32x16").unwrap().width, 16);
        assert!(Target::from_name("avx3").is_none());
        let host = Target::from_name("host").unwrap();
        assert!(TARGETS.contains(&host));
    }

    #[test]
    fn target_lists() {
        let names = |s: &str| -> Vec<&str> {
            Target::parse_list(s)
                .unwrap()
                .iter()
                .map(|t| t.name)
                .collect()
        };
        assert_eq!(names("avx2-i32x8"), ["avx2-i32x8"]);
        assert_eq!(
            names("sse4-i32x4, avx2-i32x8,avx512skx-x16"),
            ["sse4-i32x4", "avx2-i32x8", "avx512skx-x16"]
        );
        assert_eq!(Target::parse_list("host").unwrap(), [Target::host()]);
        let err = |s: &str| Target::parse_list(s).unwrap_err();
        assert!(err("sse4-i32x4,avx9-x64").starts_with("unknown target `avx9-x64` in the list"));
        assert!(err("pdp11").starts_with("unknown target `pdp11` (known:"));
        assert!(err("sse4-i32x4,,avx2-i32x8").starts_with("empty entry"));
        assert!(err("sse4-i32x4,host").starts_with("`host` cannot be part"));
        assert!(err("avx2-i32x8,avx2-i32x16").contains("same instruction set"));
        assert!(err("sse4-i32x4,neon-i32x4").contains("another architecture"));
    }
}
