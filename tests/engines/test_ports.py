"""Issue 30.7: the throwaway engines' ports are outside the OS's ephemeral range (where
the kernel picks ports for outgoing connections, so a port found free there can be gone
before the server binds it), and a cluster node's bus port is one that was checked."""

from __future__ import annotations

from tests.support.scale_out import ThrowawayRedisCluster, engine_port, ephemeral_ports


def test_engine_ports_are_distinct_and_below_the_ephemeral_range(tmp_path):
    ports = [engine_port() for _ in range(50)]
    assert len(set(ports)) == 50
    assert not [port for port in ports if port in ephemeral_ports()]
    assert all(port >= 10000 for port in ports)
    assert 5432 not in ports and 6379 not in ports


def test_the_ephemeral_range_is_read_from_the_kernel(tmp_path):
    path = tmp_path / "range"
    path.write_text("40000\t50000\n")
    assert ephemeral_ports(str(path)) == range(40000, 50001)
    assert ephemeral_ports(str(tmp_path / "absent")) == range(32768, 61000)


def test_cluster_nodes_listen_on_their_checked_bus_ports(redis_cluster: ThrowawayRedisCluster):
    nodes = redis_cluster.nodes()
    assert sorted(int(n["port"]) for n in nodes) == sorted(redis_cluster.ports)
    for node in nodes:
        bus = int(node["bus"])
        assert bus == redis_cluster.bus_ports[int(node["port"])]
        assert bus not in ephemeral_ports()
