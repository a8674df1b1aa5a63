// multi_dim.cl - 2-D and 3-D NDRanges and the work-item functions:
// get_work_dim, get_global_id(0..2), get_global_size, get_local_id,
// get_local_size, get_group_id, get_num_groups, get_global_offset.
//
// Launch: add_3d: 3-D, global = (round_up(nx), round_up(ny), round_up(nz));
//   items outside the volume return.
//   id_check: 2-D with any global offset (ox, oy), global size (gx, gy) and
//   local size dividing it; out has gx * gy * 2 ints; every item writes its
//   own two slots (row-major in the offset-free grid).
//   tile_sums: 2-D, global = (tiles_x * L0, tiles_y * L1) exactly (no
//   rounding), m is a (tiles_y * L1) x (tiles_x * L0) row-major float
//   matrix; out has tiles_x * tiles_y floats, written by the item with
//   local id (0, 0) of each work-group: the sum of its tile.

__kernel void add_3d(__global const float *a, __global const float *b,
                     __global float *c, int nx, int ny, int nz)
{
    int x = get_global_id(0);  //~ shape: contiguous
    int y = get_global_id(1);  //~ shape: uniform
    int z = get_global_id(2);  //~ shape: uniform
    if (x >= nx || y >= ny || z >= nz)
        return;

    int idx = (z * ny + y) * nx + x;  //~ shape: contiguous
    c[idx] = a[idx] + b[idx];  //~ access: c[idx]=store:contiguous, a[idx]=contiguous, b[idx]=contiguous
}

__kernel void id_check(__global int *out)
{
    size_t gx = get_global_id(0) - get_global_offset(0);  //~ shape: contiguous
    size_t gy = get_global_id(1) - get_global_offset(1);  //~ shape: uniform
    size_t width = get_global_size(0);  //~ shape: uniform

    size_t rebuilt_x = get_group_id(0) * get_local_size(0) + get_local_id(0);  //~ shape: contiguous
    size_t rebuilt_y = get_group_id(1) * get_local_size(1) + get_local_id(1);  //~ shape: uniform
    int ok = rebuilt_x == gx && rebuilt_y == gy && get_work_dim() == 2;  //~ shape: uniform //~ branch: uniform

    size_t groups = get_num_groups(0) * get_num_groups(1);  //~ shape: uniform
    size_t slot = 2 * (gy * width + gx);  //~ shape: strided
    out[slot] = ok;  //~ access: out[slot]=store:strided(8) //~ warning[L0204]
    out[slot + 1] = (int)(groups * 10 + get_group_id(1) * get_num_groups(0) + get_group_id(0)) % 100000;  //~ access: out[slot + 1]=store:strided(8) //~ warning[L0204]
}

__kernel void tile_sums(__global const float *m, __global float *out)
{
    if (get_local_id(0) != 0 || get_local_id(1) != 0)
        return;

    size_t w = get_global_size(0);  //~ shape: uniform
    size_t x0 = get_group_id(0) * get_local_size(0);  //~ shape: uniform
    size_t y0 = get_group_id(1) * get_local_size(1);
    float s = 0.0f;  //~ shape: uniform
    for (size_t y = y0; y < y0 + get_local_size(1); y++)  //~ shape: uniform //~ loop: uniform
        for (size_t x = x0; x < x0 + get_local_size(0); x++)  //~ shape: uniform //~ loop: uniform
            s += m[y * w + x];  //~ access: m[y * w + x]=uniform
    out[get_group_id(1) * get_num_groups(0) + get_group_id(0)] = s;  //~ access: out[get_group_id(1) * get_num_groups(0) + get_group_id(0)]=store:uniform
}
