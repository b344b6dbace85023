"""Arrays known only by __cuda_array_interface__, for tests that never reach a GPU."""


class FakeCudaArray:
    def __init__(self, shape, typestr="<f4", strides=None, ptr=0x10000, stream=None):
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "typestr": typestr, "data": (ptr, False),
            "strides": strides, "version": 3}
        if stream is not None:
            self.__cuda_array_interface__["stream"] = stream
