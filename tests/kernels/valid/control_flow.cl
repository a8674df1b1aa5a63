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
    int i = get_global_id(0);
    if (i >= n)
        return;

    int v = in[i];
    int r = 0;
    switch (v & 7) {
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
        r = v < 0 ? -1 : v > 1000 ? 2 : v > 100 ? 1 : 0;
        break;
    default:
        r = -5;
        break;
    }
    out[i] = r;
}

// The number of significant bits of each value (0 for 0), with do/while.
__kernel void bits_needed(__global const uint *in, __global uint *out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;

    uint x = in[i];
    uint bits = 0;
    if (x != 0) {
        do {
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
    int i = get_global_id(0);
    if (i >= n)
        return;

    __global const float *tile = tiles + i * 16;
    int found = 0;
    int where = -1;
    for (int r = 0; r < 4 && !found; r++) {
        for (int c = 0; c < 4; c++) {
            if (tile[r * 4 + c] < 0.0f) {
                where = r * 4 + c;
                found = 1;
                break;
            }
        }
    }
    pos[i] = where;
}

// Sums the positive values of a row walking from both ends at once (comma
// operator), skipping the rest with continue.
__kernel void sum_positive_reversed(__global const float *m, __global float *out,
                                    int rows, int cols)
{
    int r = get_global_id(0);
    if (r >= rows)
        return;

    __global const float *row = m + r * cols;
    float s = 0.0f;
    int a, b;
    for (a = 0, b = cols - 1; a <= b; a++, b--) {
        float va = row[a];
        float vb = a == b ? 0.0f : row[b];
        if (va <= 0.0f && vb <= 0.0f)
            continue;
        s += (va > 0.0f ? va : 0.0f) + (vb > 0.0f ? vb : 0.0f);
    }
    out[r] = s;
}
