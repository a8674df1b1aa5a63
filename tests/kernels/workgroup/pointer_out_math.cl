/*
 * pointer_out_math.cl - the math built-ins that return a second result
 * through a pointer: fract, modf, sincos, frexp, remquo, lgamma_r. The
 * pointers go to private variables, to a private array and to a __local
 * scratch slot, as the built-ins allow (OpenCL C 2.0 generic address
 * space or the 1.2 overloads for __private, __local and __global).
 * The results are packed into one float8 per element.
 *
 * Launch: 1-D, global = round_up(n, L), local = L (at most 256).
 * Arguments: x has n floats in (0, 100); y has n floats in [1, 10);
 *   out has n float8; quo has n ints.
 */

// PoCL 3.1 finds the __local overload of modf only in OpenCL C 1.2 mode.
// build: -cl-std=CL1.2
// oclgrind: ignore uninitialized (oclgrind 21.10 aborts in that plugin on
// fract with a private pointer)
// run: decompose --global 256 --local 64 --arg x=random:250:0.01:100 --arg y=random:250:1:10 --arg out=zeros:250 --arg quo=zeros:250 --arg n=250
// run: decompose --global 256 --local 256 --arg x=random:256:0.01:100 --arg y=random:256:1:10 --arg out=zeros:256 --arg quo=zeros:256 --arg n=256
__kernel void decompose(__global const float *x, __global const float *y,
                        __global float8 *out, __global int *quo, int n)
{
    __local float whole[256];

    int gid = get_global_id(0);  //~ shape: contiguous
    int lid = get_local_id(0);
    if (gid >= n)  //~ branch: divergent
        return;

    float v = x[gid];
    float w = y[gid];

    float ipart;
    float frac = fract(v, &ipart);  //~ shape: varying
    float m = modf(v, &whole[lid]);
    float c;
    float s = sincos(v, &c);
    int parts[2];
    float mant = frexp(v, &parts[0]);
    float rem = remquo(v, w, &parts[1]);
    int sign;
    float lg = lgamma_r(w, &sign);

    out[gid] = (float8)(frac + ipart, m + whole[lid], s * s + c * c, ldexp(mant, parts[0]),  //~ access: whole[lid]=contiguous
                        rem, lg, (float)sign, 0.0f);
    quo[gid] = parts[1] & 7;
}
