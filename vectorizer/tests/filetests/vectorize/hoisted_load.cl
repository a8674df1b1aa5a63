// test: lower canonicalize vectorize
// The search loop of Rodinia's particle filter: `u[i]` is loaded once
// before the divergent loop, under the lanes that enter it and the first
// iteration's condition, and not in every iteration under the shrinking
// loop mask.
__kernel void find_index(__global const float *CDF, __global const float *u,
                         __global int *index_out, int n) {
  int i = get_global_id(0);
  if (i < n) {
    int index = -1;
    for (int x = 0; x < n; x++) {
      if (CDF[x] >= u[i]) {
        index = x;
        break;
      }
    }
    index_out[i] = index;
  }
}
// check: for.body: ; mask
// nextln: sext
// nextln: mul
// nextln: ptradd %0
// nextln: $(cdf=%\d+) = load f32 $(a=%\d+), align 4 : uniform
// nextln: cmp foge f32 $cdf, $(u=%\d+) : varying
// not: load f32
// check: for.cond.hoist: ; mask
// nextln: $(v=%\d+) = load f32 $(addr=%\d+), align 4 : varying
