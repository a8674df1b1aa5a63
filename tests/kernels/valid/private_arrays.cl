// private_arrays.cl - fixed-size private arrays: a window loaded into a
// private array and sorted with insertion sort (median filter), a 2-D
// private array (3 x 3 matrix), and an array with an initializer list
// indexed by a varying value.
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: median5: in and out have n floats (n >= 1), reads are clamped
//   into [0, n). mat3_apply: mats has 9 * n floats (n row-major 3 x 3
//   matrices), v and out have 3 * n floats. permute_nibbles: in and out have
//   n uints.

__kernel void median5(__global const float *in, __global float *out, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;

    float w[5];  //~ shape: varying //~ warning[L0206]
    for (int k = 0; k < 5; k++)  //~ shape: uniform //~ loop: uniform
        w[k] = in[clamp(i + k - 2, 0, n - 1)];  //~ warning[L0202]

    // insertion sort
    for (int k = 1; k < 5; k++) {  //~ shape: uniform //~ loop: uniform
        float key = w[k];  //~ shape: varying
        int j = k - 1;  //~ shape: varying
        while (j >= 0 && w[j] > key) {  //~ loop: divergent //~ warning[L0201]
            w[j + 1] = w[j];
            j--;
        }
        w[j + 1] = key;
    }
    out[i] = w[2];  //~ access: out[i]=store:contiguous
}

__kernel void mat3_apply(__global const float *mats, __global const float *v,
                         __global float *out, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;

    float m[3][3];  //~ shape: varying
    for (int r = 0; r < 3; r++)  //~ shape: uniform //~ loop: uniform
        for (int c = 0; c < 3; c++)  //~ shape: uniform //~ loop: uniform
            m[r][c] = mats[9 * i + 3 * r + c];  //~ access: mats[9 * i + 3 * r + c]=strided(36) //~ warning[L0204]

    float x[3] = { v[3 * i], v[3 * i + 1], v[3 * i + 2] };  //~ shape: varying //~ access: v[3 * i]=strided(12), v[3 * i + 1]=strided(12), v[3 * i + 2]=strided(12) //~ warning[L0204] warning[L0204] warning[L0204]
    for (int r = 0; r < 3; r++) {  //~ shape: uniform //~ loop: uniform
        float acc = 0.0f;  //~ shape: varying
        for (int c = 0; c < 3; c++)  //~ shape: uniform //~ loop: uniform
            acc += m[r][c] * x[c];
        out[3 * i + r] = acc;  //~ access: out[3 * i + r]=store:strided(12) //~ warning[L0204]
    }
}

// Applies a fixed permutation to the 8 nibbles of each value, through a
// lookup table indexed by the (varying) nibble value.
__kernel void permute_nibbles(__global const uint *in, __global uint *out, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;

    const int order[8] = { 3, 0, 7, 5, 1, 6, 2, 4 };  //~ shape: uniform
    const uint remap[16] = { 0x0, 0x8, 0x4, 0xc, 0x2, 0xa, 0x6, 0xe,  //~ shape: uniform
                             0x1, 0x9, 0x5, 0xd, 0x3, 0xb, 0x7, 0xf };
    uint x = in[i];  //~ shape: varying //~ access: in[i]=contiguous
    uint r = 0;  //~ shape: varying
    for (int k = 0; k < 8; k++) {  //~ shape: uniform //~ loop: uniform
        uint nib = (x >> (4 * order[k])) & 0xfu;  //~ shape: varying
        r |= remap[nib] << (4 * k);
    }
    out[i] = r;  //~ access: out[i]=store:contiguous
}
