// L0907: goto and labels are not supported. Both the goto statement and
// the label are reported. Otherwise valid OpenCL C.
//
// Launch: 1-D, one work-item per row, global = round_up(rows).

__kernel void first_zero(__global const float *m, __global int *pos,
                         int rows, int cols)
{
    int r = get_global_id(0);
    if (r >= rows)
        return;
    int c;
    for (c = 0; c < cols; c++) {
        if (m[r * cols + c] == 0.0f)
            goto found;                             //~ error[L0907]
    }
    c = -1;
found:                                              //~ error[L0907]
    pos[r] = c;
}
