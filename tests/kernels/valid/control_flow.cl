// control_flow.cl - C control flow: switch with fall-through and default,
// do/while, continue, breaking out of nested loops through a flag, ?:
// chains, the comma operator in a for, and while loops with compound
// conditions.
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: classify: in and out have n ints.
//   bits_needed: in and out have n uints.
//   find_in_tile: tiles has n * 16 floats (n tiles of 4 x 4), pos has n ints.
//   sum_positive_reversed: rows x cols floats in m, n == rows, out has rows.

__kernel void classify(__global const int *in, __global int *out, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;

    int v = in[i];  //~ shape: varying //~ access: in[i]=contiguous
    int r = 0;
    switch (v & 7) {  //~ branch: divergent
    case 0:
        r = 1;
        break;
    case 1:
    case 2:
        r = 2;
        /* fall through */
    case 3:
        r += 10;
        break;
    case 6:
        r = v < 0 ? -1 : v > 1000 ? 2 : v > 100 ? 1 : 0;  //~ branch: divergent
        break;
    default:
        r = -5;
        break;
    }
    out[i] = r;  //~ access: out[i]=store:contiguous
}

// The number of significant bits of each value (0 for 0), with do/while.
__kernel void bits_needed(__global const uint *in, __global uint *out, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)
        return;

    uint x = in[i];
    uint bits = 0;  //~ shape: varying
    if (x != 0) {  //~ branch: divergent
        do {  //~ loop: divergent //~ warning[L0201]
            bits++;
            x >>= 1;
        } while (x != 0);
    }
    out[i] = bits;
}

// The position (row * 4 + col) of the first negative value of each 4 x 4
// tile, or -1: a nested search left through a flag.
__kernel void find_in_tile(__global const float *tiles, __global int *pos, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)
        return;

    __global const float *tile = tiles + i * 16;  //~ shape: strided
    int found = 0;  //~ shape: varying
    int where = -1;  //~ shape: varying
    for (int r = 0; r < 4 && !found; r++) {  //~ shape: uniform //~ loop: divergent //~ warning[L0201]
        for (int c = 0; c < 4; c++) {  //~ loop: divergent //~ warning[L0201]
            if (tile[r * 4 + c] < 0.0f) {  //~ access: tile[r * 4 + c]=strided(64) //~ warning[L0204]
                where = r * 4 + c;
                found = 1;
                break;
            }
        }
    }
    pos[i] = where;  //~ access: pos[i]=store:contiguous
}

// Sums the positive values of a row walking from both ends at once (comma
// operator), skipping the rest with continue.
__kernel void sum_positive_reversed(__global const float *m, __global float *out,
                                    int rows, int cols)
{
    int r = get_global_id(0);  //~ shape: contiguous
    if (r >= rows)
        return;

    __global const float *row = m + r * cols;  //~ shape: varying
    float s = 0.0f;
    int a, b;  //~ shape: a=uniform, b=uniform
    for (a = 0, b = cols - 1; a <= b; a++, b--) {  //~ loop: uniform
        float va = row[a];  //~ shape: varying //~ access: row[a]=gather //~ warning[L0202]
        float vb = a == b ? 0.0f : row[b];  //~ shape: varying //~ branch: uniform //~ access: row[b]=gather //~ warning[L0202]
        if (va <= 0.0f && vb <= 0.0f)  //~ branch: divergent
            continue;
        s += (va > 0.0f ? va : 0.0f) + (vb > 0.0f ? vb : 0.0f);  //~ branch: divergent
    }
    out[r] = s;  //~ access: out[r]=store:contiguous
}
