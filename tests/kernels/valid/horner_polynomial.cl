// horner_polynomial.cl - polynomial evaluation with Horner's rule.
//   horner:          one polynomial (uniform coefficients, uniform loop) at
//                    many points.
//   horner_per_item: each item evaluates its own polynomial, of its own
//                    degree (a divergent loop with gathered coefficients).
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: horner: x and y have n floats, c has degree + 1 floats, lowest
//   power first, degree >= 0.
//   horner_per_item: item i uses coefficients coef[start[i] .. start[i] +
//   deg[i]] (lowest power first); start and deg have n ints with deg[i] >= 0
//   and start[i] + deg[i] < the length of coef.

__kernel void horner(__global const float *x, __global float *y,
                     __global const float *c, int degree, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;

    float xi = x[i];  //~ shape: varying //~ access: x[i]=contiguous
    float acc = c[degree];  //~ shape: varying //~ access: c[degree]=uniform
    for (int k = degree - 1; k >= 0; k--)  //~ shape: uniform //~ loop: uniform
        acc = fma(acc, xi, c[k]);  //~ access: c[k]=uniform
    y[i] = acc;  //~ access: y[i]=store:contiguous
}

__kernel void horner_per_item(__global const float *x, __global float *y,
                              __global const float *coef,
                              __global const int *start,
                              __global const int *deg, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)
        return;

    __global const float *c = coef + start[i];  //~ shape: varying //~ access: start[i]=contiguous
    float xi = x[i];  //~ shape: varying //~ access: x[i]=contiguous
    float acc = 0.0f;
    for (int k = deg[i]; k >= 0; k--)  //~ shape: varying //~ loop: divergent //~ access: deg[i]=contiguous //~ warning[L0201]
        acc = acc * xi + c[k];  //~ access: c[k]=gather //~ warning[L0202]
    y[i] = acc;  //~ access: y[i]=store:contiguous
}
