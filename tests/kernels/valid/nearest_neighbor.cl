// nearest_neighbor.cl - distances from geographic records to one query
// point (in the style of Rodinia's nn), and a per-item top-2 search over a
// candidate window.
//
// Launch: 1-D. euclid: global = round_up(nrecords); ids >= nrecords return.
//   top2_in_window: global = round_up(nrecords); ids >= nrecords return.
// Arguments: locations has nrecords float2 (latitude, longitude); distances
//   has nrecords floats. top2_in_window: each item scans distances[i ..
//   min(i + window, nrecords)) and writes the two smallest values (ascending)
//   to best2[2 * i], best2[2 * i + 1]; window >= 1.

typedef struct {
    float lat;
    float lng;
} LatLong;

__kernel void euclid(__global const LatLong *locations, __global float *distances,
                     int nrecords, float lat, float lng)
{
    int i = get_global_id(0);
    if (i >= nrecords)
        return;

    LatLong l = locations[i];
    float dlat = lat - l.lat;
    float dlng = lng - l.lng;
    distances[i] = sqrt(dlat * dlat + dlng * dlng);
}

__kernel void top2_in_window(__global const float *distances, __global float *best2,
                             int nrecords, int window)
{
    int i = get_global_id(0);
    if (i >= nrecords)
        return;

    float b0 = INFINITY;
    float b1 = INFINITY;
    int end = min(nrecords, i + window);
    for (int k = i; k < end; k++) {
        float d = distances[k];
        if (d < b0) {
            b1 = b0;
            b0 = d;
        } else if (d < b1) {
            b1 = d;
        }
    }
    best2[2 * i] = b0;
    best2[2 * i + 1] = b1;
}
