// doubles.cl - double precision: daxpy, a compensated (Kahan) row sum, and
// float <-> double conversions with double math built-ins.
//
// Launch: 1-D. daxpy: global = round_up(n). kahan_row_sum: global =
//   round_up(rows). widen_and_back: global = round_up(n). Extra items return.
// Arguments: daxpy: x, y have n doubles. kahan_row_sum: m is rows x cols
//   row-major doubles, sums has rows doubles. widen_and_back: in has n
//   floats, out_d has n doubles, out_f n floats.
// Requires a device with double support (cl_khr_fp64).

__kernel void daxpy(int n, double a, __global const double *x, __global double *y)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i < n)  //~ branch: divergent
        y[i] = a * x[i] + y[i];  //~ access: x[i]=contiguous(8), y[i]=load:contiguous(8), y[i]=store:contiguous(8)
}

__kernel void kahan_row_sum(__global const double *m, __global double *sums,
                            int rows, int cols)
{
    int r = get_global_id(0);  //~ shape: contiguous
    if (r >= rows)
        return;

    double sum = 0.0;  //~ shape: varying
    double comp = 0.0;  //~ shape: varying
    for (int c = 0; c < cols; c++) {  //~ shape: uniform //~ loop: uniform
        double y = m[r * cols + c] - comp;  //~ shape: varying //~ access: m[r * cols + c]=gather //~ warning[L0202]
        double t = sum + y;
        comp = (t - sum) - y;
        sum = t;
    }
    sums[r] = sum;  //~ access: sums[r]=store:contiguous(8)
}

__kernel void widen_and_back(__global const float *in, __global double *out_d,
                             __global float *out_f, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)
        return;

    double v = (double)in[i];  //~ shape: varying //~ access: in[i]=contiguous(4)
    double h = sqrt(fabs(v) + 1.0) * exp(-0.5 * v * v / (1.0 + v * v));
    double2 pair = (double2)(v, h);  //~ shape: varying
    out_d[i] = pair.x * 0.5 + pair.y * 0.25 + (double)1.0e-3f;  //~ access: out_d[i]=store:contiguous(8)
    out_f[i] = (float)h + convert_float(pair.x * 2.0);  //~ access: out_f[i]=store:contiguous(4)
}
