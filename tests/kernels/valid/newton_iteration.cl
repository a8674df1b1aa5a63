// newton_iteration.cl - Newton's method with a data-dependent trip count:
//   newton_cbrt:  the real cube root of each input, iterating until the
//                 relative update is below tol or max_iter is reached.
//   newton_kepler: solves Kepler's equation E - e sin E = M for each orbit.
//
// Launch: 1-D, global = round_up(n); ids >= n return.
// Arguments: newton_cbrt: x has n floats, root has n floats, iters has n
//   ints; tol > 0, max_iter >= 0. newton_kepler: mean_anomaly and ecc have
//   n floats with 0 <= ecc < 1; ecc_anomaly receives n floats.
//
// Both loops are divergent with two exits: a uniform iteration bound and a
// varying convergence test.

__kernel void newton_cbrt(__global const float *x, __global float *root,
                          __global int *iters, float tol, int max_iter, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;

    float a = x[i];  //~ shape: varying //~ access: x[i]=contiguous
    float s = sign(a);
    float m = fabs(a);
    if (m == 0.0f || !isfinite(m)) {  //~ branch: divergent
        root[i] = a;  //~ access: root[i]=store:contiguous
        iters[i] = 0;
        return;
    }

    float r = m > 1.0f ? m / 3.0f + 1.0f : 1.0f;  //~ shape: varying //~ branch: divergent
    int it = 0;  //~ shape: varying
    while (it < max_iter) {  //~ loop: divergent //~ warning[L0201]
        float next = r - (r * r * r - m) / (3.0f * r * r);  //~ shape: varying
        it++;
        if (fabs(next - r) <= tol * fabs(next)) {
            r = next;
            break;
        }
        r = next;
    }
    root[i] = s * r;  //~ access: root[i]=store:contiguous
    iters[i] = it;  //~ access: iters[i]=store:contiguous
}

__kernel void newton_kepler(__global const float *mean_anomaly,
                            __global const float *ecc,
                            __global float *ecc_anomaly, int n)
{
    int i = get_global_id(0);  //~ shape: contiguous
    if (i >= n)  //~ branch: divergent
        return;

    float M = mean_anomaly[i];
    float e = ecc[i];  //~ shape: varying //~ access: ecc[i]=contiguous
    float E = e < 0.8f ? M : M_PI_F;  //~ shape: varying //~ branch: divergent
    for (int it = 0; it < 50; it++) {  //~ shape: uniform //~ loop: divergent //~ warning[L0201]
        float f = E - e * sin(E) - M;
        float df = 1.0f - e * cos(E);
        float dE = f / df;  //~ shape: varying
        E -= dE;
        if (fabs(dE) < 1.0e-6f)
            break;
    }
    ecc_anomaly[i] = E;  //~ access: ecc_anomaly[i]=store:contiguous
}
