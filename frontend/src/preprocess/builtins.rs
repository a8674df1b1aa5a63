//! The `<built-in>` file: predefined macros, then `-D` and `-U` options, as
//! `#define`/`#undef` lines, so that every macro body has a real span.

use std::fmt::Write;

use super::PreprocessOptions;

/// Predefined object-like macros. The OpenCL constants are those of clang's
/// `opencl-c-base.h` (clang 19); the four `__builtin_*` functions of the
/// infinity/NaN constants are lanes' own, known to the type checker.
const PREDEFINED: &[(&str, &str)] = &[
    ("__OPENCL_VERSION__", "120"),
    ("__OPENCL_C_VERSION__", "120"),
    ("CL_VERSION_1_0", "100"),
    ("CL_VERSION_1_1", "110"),
    ("CL_VERSION_1_2", "120"),
    ("CL_VERSION_2_0", "200"),
    ("__LANES__", "1"),
    ("__ENDIAN_LITTLE__", "1"),
    ("cl_khr_fp64", "1"),
    ("cl_khr_subgroups", "1"),
    ("MAXFLOAT", "0x1.fffffep127f"),
    ("HUGE_VALF", "(__builtin_huge_valf())"),
    ("HUGE_VAL", "(__builtin_huge_val())"),
    ("INFINITY", "(__builtin_inff())"),
    ("NAN", "(__builtin_nanf())"),
    ("FP_ILOGB0", "INT_MIN"),
    ("FP_ILOGBNAN", "INT_MAX"),
    ("FLT_DIG", "6"),
    ("FLT_MANT_DIG", "24"),
    ("FLT_MAX_10_EXP", "+38"),
    ("FLT_MAX_EXP", "+128"),
    ("FLT_MIN_10_EXP", "-37"),
    ("FLT_MIN_EXP", "-125"),
    ("FLT_RADIX", "2"),
    ("FLT_MAX", "0x1.fffffep127f"),
    ("FLT_MIN", "0x1.0p-126f"),
    ("FLT_EPSILON", "0x1.0p-23f"),
    ("M_E_F", "2.71828182845904523536028747135266250f"),
    ("M_LOG2E_F", "1.44269504088896340735992468100189214f"),
    ("M_LOG10E_F", "0.434294481903251827651128918916605082f"),
    ("M_LN2_F", "0.693147180559945309417232121458176568f"),
    ("M_LN10_F", "2.30258509299404568401799145468436421f"),
    ("M_PI_F", "3.14159265358979323846264338327950288f"),
    ("M_PI_2_F", "1.57079632679489661923132169163975144f"),
    ("M_PI_4_F", "0.785398163397448309615660845819875721f"),
    ("M_1_PI_F", "0.318309886183790671537767526745028724f"),
    ("M_2_PI_F", "0.636619772367581343075535053490057448f"),
    ("M_2_SQRTPI_F", "1.12837916709551257389615890312154517f"),
    ("M_SQRT2_F", "1.41421356237309504880168872420969808f"),
    ("M_SQRT1_2_F", "0.707106781186547524400844362104849039f"),
    ("DBL_DIG", "15"),
    ("DBL_MANT_DIG", "53"),
    ("DBL_MAX_10_EXP", "+308"),
    ("DBL_MAX_EXP", "+1024"),
    ("DBL_MIN_10_EXP", "-307"),
    ("DBL_MIN_EXP", "-1021"),
    ("DBL_RADIX", "2"),
    ("DBL_MAX", "0x1.fffffffffffffp1023"),
    ("DBL_MIN", "0x1.0p-1022"),
    ("DBL_EPSILON", "0x1.0p-52"),
    ("M_E", "0x1.5bf0a8b145769p+1"),
    ("M_LOG2E", "0x1.71547652b82fep+0"),
    ("M_LOG10E", "0x1.bcb7b1526e50ep-2"),
    ("M_LN2", "0x1.62e42fefa39efp-1"),
    ("M_LN10", "0x1.26bb1bbb55516p+1"),
    ("M_PI", "0x1.921fb54442d18p+1"),
    ("M_PI_2", "0x1.921fb54442d18p+0"),
    ("M_PI_4", "0x1.921fb54442d18p-1"),
    ("M_1_PI", "0x1.45f306dc9c883p-2"),
    ("M_2_PI", "0x1.45f306dc9c883p-1"),
    ("M_2_SQRTPI", "0x1.20dd750429b6dp+0"),
    ("M_SQRT2", "0x1.6a09e667f3bcdp+0"),
    ("M_SQRT1_2", "0x1.6a09e667f3bcdp-1"),
    ("CHAR_BIT", "8"),
    ("SCHAR_MAX", "127"),
    ("SCHAR_MIN", "(-128)"),
    ("UCHAR_MAX", "255"),
    ("CHAR_MAX", "SCHAR_MAX"),
    ("CHAR_MIN", "SCHAR_MIN"),
    ("USHRT_MAX", "65535"),
    ("SHRT_MAX", "32767"),
    ("SHRT_MIN", "(-32768)"),
    ("UINT_MAX", "0xffffffff"),
    ("INT_MAX", "2147483647"),
    ("INT_MIN", "(-2147483647-1)"),
    ("ULONG_MAX", "0xffffffffffffffffUL"),
    ("LONG_MAX", "0x7fffffffffffffffL"),
    ("LONG_MIN", "(-0x7fffffffffffffffL-1)"),
    ("CLK_LOCAL_MEM_FENCE", "0x01"),
    ("CLK_GLOBAL_MEM_FENCE", "0x02"),
    ("CLK_IMAGE_MEM_FENCE", "0x04"),
    // Sampler fields and image channel orders and types, as clang's
    // opencl-c-base.h defines them for OpenCL C 2.0 (without the 3.0 and
    // extension ones).
    ("CLK_ADDRESS_NONE", "0"),
    ("CLK_ADDRESS_CLAMP_TO_EDGE", "2"),
    ("CLK_ADDRESS_CLAMP", "4"),
    ("CLK_ADDRESS_REPEAT", "6"),
    ("CLK_ADDRESS_MIRRORED_REPEAT", "8"),
    ("CLK_NORMALIZED_COORDS_FALSE", "0"),
    ("CLK_NORMALIZED_COORDS_TRUE", "1"),
    ("CLK_FILTER_NEAREST", "0x10"),
    ("CLK_FILTER_LINEAR", "0x20"),
    ("CLK_SNORM_INT8", "0x10D0"),
    ("CLK_SNORM_INT16", "0x10D1"),
    ("CLK_UNORM_INT8", "0x10D2"),
    ("CLK_UNORM_INT16", "0x10D3"),
    ("CLK_UNORM_SHORT_565", "0x10D4"),
    ("CLK_UNORM_SHORT_555", "0x10D5"),
    ("CLK_UNORM_INT_101010", "0x10D6"),
    ("CLK_SIGNED_INT8", "0x10D7"),
    ("CLK_SIGNED_INT16", "0x10D8"),
    ("CLK_SIGNED_INT32", "0x10D9"),
    ("CLK_UNSIGNED_INT8", "0x10DA"),
    ("CLK_UNSIGNED_INT16", "0x10DB"),
    ("CLK_UNSIGNED_INT32", "0x10DC"),
    ("CLK_HALF_FLOAT", "0x10DD"),
    ("CLK_FLOAT", "0x10DE"),
    ("CLK_UNORM_INT24", "0x10DF"),
    ("CLK_R", "0x10B0"),
    ("CLK_A", "0x10B1"),
    ("CLK_RG", "0x10B2"),
    ("CLK_RA", "0x10B3"),
    ("CLK_RGB", "0x10B4"),
    ("CLK_RGBA", "0x10B5"),
    ("CLK_BGRA", "0x10B6"),
    ("CLK_ARGB", "0x10B7"),
    ("CLK_INTENSITY", "0x10B8"),
    ("CLK_LUMINANCE", "0x10B9"),
    ("CLK_Rx", "0x10BA"),
    ("CLK_RGx", "0x10BB"),
    ("CLK_RGBx", "0x10BC"),
    ("CLK_DEPTH", "0x10BD"),
    ("CLK_DEPTH_STENCIL", "0x10BE"),
    ("CLK_sRGB", "0x10BF"),
    ("CLK_sRGBx", "0x10C0"),
    ("CLK_sRGBA", "0x10C1"),
    ("CLK_sBGRA", "0x10C2"),
    ("CLK_ABGR", "0x10C3"),
    ("ATOMIC_VAR_INIT(x)", "(x)"),
    ("ATOMIC_FLAG_INIT", "0"),
    // Device-side enqueue flags, so that `enqueue_kernel` calls reach the
    // type checker, which reports them as unsupported.
    ("CLK_ENQUEUE_FLAGS_NO_WAIT", "0"),
    ("CLK_ENQUEUE_FLAGS_WAIT_KERNEL", "1"),
    ("CLK_ENQUEUE_FLAGS_WAIT_WORK_GROUP", "2"),
];

const KERNEL_EXEC: &str =
    "__kernel __attribute__((work_group_size_hint(X, 1, 1))) __attribute__((vec_type_hint(typen)))";

/// The text of the `<built-in>` file. `-D`s come in order after the
/// predefined macros (so they may redefine them, with a warning), and `-U`s
/// after all `-D`s.
pub(super) fn text(opts: &PreprocessOptions) -> String {
    let mut s = String::new();
    for (name, value) in PREDEFINED {
        let _ = writeln!(s, "#define {name} {value}");
    }
    let width = if opts.width == 0 { 8 } else { opts.width };
    let _ = writeln!(s, "#define __LANES_WIDTH__ {width}");
    let _ = writeln!(s, "#define __kernel_exec(X, typen) {KERNEL_EXEC}");
    let _ = writeln!(s, "#define kernel_exec(X, typen) {KERNEL_EXEC}");
    for (name, value) in &opts.defines {
        let value = value.as_deref().map_or_else(|| "1".to_string(), one_line);
        let _ = writeln!(s, "#define {} {}", one_line(name), value);
    }
    for name in &opts.undefines {
        let _ = writeln!(s, "#undef {}", one_line(name));
    }
    s
}

/// A command-line value must not start a new line (and so a directive).
fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}
