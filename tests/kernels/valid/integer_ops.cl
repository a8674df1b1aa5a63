// integer_ops.cl - integer built-ins and arithmetic: min max clamp abs
// abs_diff mul24 mad24 popcount clz rotate, shifts, / and % on signed and
// unsigned operands, uint/ulong/long arithmetic and size_t index math.
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: a and b have n ints (any values); out has 8 * n ints,
//   uout has 8 * n uints (int_builtins) or 4 * n (div_mod, which also
//   writes 4 * n ints to out); wide has 2 * n ulongs and sl n longs.
//
// Every operation is defined for all inputs: signed products are formed
// from masked operands, divisors are in [1, 256], shift counts are masked,
// wrapping arithmetic is done in unsigned types.

__kernel void int_builtins(__global const int *a, __global const int *b,
                           __global int *out, __global uint *uout, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;

    int x = a[i];  //~ shape: varying //~ access: a[i]=contiguous
    int y = b[i];  //~ shape: varying //~ access: b[i]=contiguous
    int xs = x & 0x7fff;              // small operands for the products
    int ys = (y >> 16) & 0x7fff;

    out[8 * i + 0] = min(x, y);  //~ access: out[8 * i + 0]=store:strided(32) //~ warning[L0204]
    out[8 * i + 1] = max(x, y);  //~ access: out[8 * i + 1]=store:strided(32) //~ warning[L0204]
    out[8 * i + 2] = clamp(x, -1000, 1000);  //~ access: out[8 * i + 2]=store:strided(32) //~ warning[L0204]
    out[8 * i + 3] = mul24(xs, ys);  //~ access: out[8 * i + 3]=store:strided(32) //~ warning[L0204]
    out[8 * i + 4] = mad24(xs, ys, clamp(y, -1000, 1000));  //~ access: out[8 * i + 4]=store:strided(32) //~ warning[L0204]
    out[8 * i + 5] = x >> 4;          // arithmetic shift of a signed value  //~ access: out[8 * i + 5]=store:strided(32) //~ warning[L0204]
    out[8 * i + 6] = (x & 0xff) - (y & 0xff);  //~ access: out[8 * i + 6]=store:strided(32) //~ warning[L0204]
    out[8 * i + 7] = select(x, y, x > y ? -1 : 0) & 0xffff;  //~ branch: divergent //~ access: out[8 * i + 7]=store:strided(32) //~ warning[L0204]

    uint ux = (uint)x;  //~ shape: varying
    uint uy = (uint)y;
    uout[8 * i + 0] = abs(x);  //~ access: uout[8 * i + 0]=store:strided(32) //~ warning[L0204]
    uout[8 * i + 1] = abs_diff(x, y);  //~ warning[L0204]
    uout[8 * i + 2] = popcount(ux);  //~ warning[L0204]
    uout[8 * i + 3] = clz(uy);  //~ warning[L0204]
    uout[8 * i + 4] = rotate(ux, uy & 31u);  //~ warning[L0204]
    uout[8 * i + 5] = (ux << (uy & 31u)) ^ (ux >> 3);  //~ warning[L0204]
    uout[8 * i + 6] = ux * 2654435761u + uy;   // wraps: unsigned  //~ warning[L0204]
    uout[8 * i + 7] = ~ux & (uy | 0x0f0f0f0fu);  //~ access: uout[8 * i + 7]=store:strided(32) //~ warning[L0204]
}

__kernel void div_mod(__global const int *a, __global const int *b,
                      __global int *out, __global uint *uout, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;

    int x = a[i];  //~ shape: varying //~ access: a[i]=contiguous
    int d = (b[i] & 0xff) + 1;        // 1 .. 256  //~ shape: varying //~ access: b[i]=contiguous
    uint ux = (uint)x;
    uint ud = (uint)d;

    out[4 * i + 0] = x / d;           // truncates toward zero  //~ access: out[4 * i + 0]=store:strided(16) //~ warning[L0204] warning[L0205]
    out[4 * i + 1] = x % d;           // takes the sign of x  //~ access: out[4 * i + 1]=store:strided(16) //~ warning[L0204] warning[L0205]
    out[4 * i + 2] = (x / d) * d + x % d;   // == x  //~ access: out[4 * i + 2]=store:strided(16) //~ warning[L0204] warning[L0205] warning[L0205]
    out[4 * i + 3] = (x % 7 + 7) % 7; // the non-negative residue  //~ access: out[4 * i + 3]=store:strided(16) //~ warning[L0204]
    uout[4 * i + 0] = ux / ud;  //~ access: uout[4 * i + 0]=store:strided(16) //~ warning[L0204] warning[L0205]
    uout[4 * i + 1] = ux % ud;  //~ access: uout[4 * i + 1]=store:strided(16) //~ warning[L0204] warning[L0205]
    uout[4 * i + 2] = ux / 10u;  //~ access: uout[4 * i + 2]=store:strided(16) //~ warning[L0204]
    uout[4 * i + 3] = ux % 1024u;  //~ access: uout[4 * i + 3]=store:strided(16) //~ warning[L0204]
}

__kernel void wide_arith(__global const int *a, __global const int *b,
                         __global ulong *wide, __global long *sl, int n)
{
    size_t gid = get_global_id(0);  //~ shape: contiguous
    if (gid >= (size_t)n)  //~ branch: divergent
        return;

    uint ux = (uint)a[gid];
    uint uy = (uint)b[gid];
    ulong prod = (ulong)ux * (ulong)uy;          // exact 64-bit product  //~ shape: varying
    ulong hi = prod >> 32;
    ulong lo = prod & 0xffffffffUL;
    size_t idx = gid * 2 + 1;  //~ shape: strided
    wide[idx - 1] = prod + (hi ^ lo);  //~ access: wide[idx - 1]=store:strided(16) //~ warning[L0204]
    wide[idx] = (ulong)(uint)hi == (prod >> 32) ? hi : 0UL;  //~ branch: divergent //~ access: wide[idx]=store:strided(16) //~ warning[L0204]
    sl[gid] = (long)a[gid] * (long)b[gid] - (long)(a[gid] / 3);  //~ access: sl[gid]=store:contiguous(8), a[gid]=contiguous(4), b[gid]=contiguous(4)
}
