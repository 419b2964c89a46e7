"""The graph's view: the widget and its layers, controls, camera, keys, legend, export and
layout worker. It draws what :mod:`anthology.graph` (Qt-free) says."""
