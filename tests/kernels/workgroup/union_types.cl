/*
 * union_types.cl - unions for reinterpreting bits, as image and
 * compression kernels write them: a float's sign, exponent and mantissa
 * through `union { float f; uint u; }`, and a uchar4 pixel as one uint.
 * float_bits_histogram counts the exponents of a block in __local memory
 * (atomic_inc on the bin of each element); pack_pixels packs RGBA bytes.
 *
 * Launch: 1-D, global = G L, local = L.
 * Arguments: float_bits_histogram: in has G L floats, hist has 256 G uints
 *   (one exponent histogram per work-group), negatives has G uints.
 *   pack_pixels: rgba has n uchar4, packed has n uints.
 */

typedef union {
    float f;
    uint u;
} float_bits;

union pixel {
    uchar4 rgba;
    uint word;
};

// run: float_bits_histogram --global 256 --local 64 --arg in=random:256:-100:100 --arg hist=zeros:1024 --arg negatives=zeros:4
// run: float_bits_histogram --global 256 --local 256 --arg in=random:256:-100:100 --arg hist=zeros:256 --arg negatives=zeros:1
__kernel void float_bits_histogram(__global const float *in, __global uint *hist,
                                   __global uint *negatives)
{
    __local uint bins[256];
    __local uint neg;

    uint lid = get_local_id(0);  //~ shape: contiguous
    for (uint i = lid; i < 256; i += get_local_size(0))  //~ warning[L0201]
        bins[i] = 0;
    if (lid == 0)
        neg = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    float_bits b;  //~ warning[L0206]
    b.f = in[get_global_id(0)];
    uint exponent = (b.u >> 23) & 0xff;  //~ shape: varying
    atomic_inc(&bins[exponent]);  //~ warning[L0209]
    if (b.u >> 31)  //~ branch: divergent
        atomic_inc(&neg);  //~ warning[L0208]
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint i = lid; i < 256; i += get_local_size(0))  //~ warning[L0201]
        hist[get_group_id(0) * 256 + i] = bins[i];
    if (lid == 0)
        negatives[get_group_id(0)] = neg;
}

// run: pack_pixels --global 256 --local 64 --arg rgba=random:256:0:256 --arg packed=zeros:256 --arg n=256
// run: pack_pixels --global 256 --local 32 --arg rgba=random:200:0:256 --arg packed=zeros:200 --arg n=200
__kernel void pack_pixels(__global const uchar4 *rgba, __global uint *packed, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    union pixel p;  //~ warning[L0206]
    p.rgba = rgba[i];  //~ access: rgba[i]=contiguous
    packed[i] = p.word;  //~ access: packed[i]=store:contiguous
}
