// typedefs_casts.cl - typedefs of scalars, vectors and pointers; explicit
// casts between int, uint, float, char, uchar and short; casts between
// __global pointer types (reinterpreting a float buffer as uints); implicit
// arithmetic conversions.
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: in has n floats (any values); iout has n ints, uout n uints,
//   cout n chars, fout n floats; bits (reinterpret) has n uints.

typedef float real;
typedef float4 real4;
typedef unsigned int u32;
typedef int index_t;
typedef unsigned char byte;
typedef __global const real *real_cptr;

__kernel void casts(real_cptr in, __global int *iout, __global u32 *uout,
                    __global char *cout, __global real *fout, index_t n)
{
    index_t i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;

    // bound the value first: float -> int of an out-of-range value is undefined
    real f = fmax(fmin(in[i], 100.0f), -100.0f);  //~ shape: varying //~ access: in[i]=contiguous
    int k = (int)f;                      // truncates toward zero  //~ shape: varying
    u32 u = (u32)(k + 200);              // 100 .. 300
    char c = (char)(k / 2);              // -50 .. 50  //~ shape: varying
    byte b = (byte)(u & 0xffu);
    short s = (short)(k * 300);
    real back = (real)k / 3.0f + (real)c;

    iout[i] = k + (int)b - (int)s / 100;  //~ access: iout[i]=store:contiguous
    uout[i] = u + (u32)b;
    cout[i] = c;  //~ access: cout[i]=store:contiguous(1)
    fout[i] = back + (float)u * 0.5f + s;   // implicit short -> float  //~ access: fout[i]=store:contiguous
}

// Reinterprets the float buffer as uint bit patterns through a pointer cast
// and rebuilds each value from its high bytes and its first byte.
__kernel void reinterpret(__global const float *in, __global u32 *bits, index_t n)
{
    index_t i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;

    __global const u32 *raw = (__global const u32 *)in;  //~ shape: uniform
    __global const uchar *bytes = (__global const uchar *)(in + i);  //~ shape: strided
    u32 low_byte = bytes[0];             // the low byte on little-endian devices  //~ shape: varying //~ access: bytes[0]=strided(4) //~ warning[L0204]
    bits[i] = (raw[i] & 0xffffff00u) | low_byte;  //~ access: bits[i]=store:contiguous, raw[i]=contiguous
}

__kernel void vector_typedefs(__global const real4 *a, __global real4 *out, index_t n)
{
    index_t i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;

    real4 v = a[i];
    real4 bounded = fmax(fmin(v, (real4)(1000.0f)), (real4)(-1000.0f));  //~ shape: varying
    int4 t = convert_int4(bounded);  //~ shape: varying
    out[i] = convert_float4(t) + (real4)(0.5f);
}
