"""Developer tools beside the service (not inside it): ``darkroad simulate``, ``plugins``,
``new-plugin``, the simulation runner and the plugin scaffold."""
