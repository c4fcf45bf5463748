"""The two roles as groups, with what each may do (citeview/accounts/roles.py)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

from citeview.accounts.roles import ROLE_PERMISSIONS, ensure_roles


def create_roles(apps, schema_editor):
    # Permissions are normally made after all migrations; the groups need them now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    ensure_roles(apps.get_model("auth", "Group"), apps.get_model("auth", "Permission"))


def remove_roles(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=ROLE_PERMISSIONS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("dumps", "0003_dump_details_and_search"),
        ("review", "0001_initial"),
    ]

    operations = [migrations.RunPython(create_roles, remove_roles)]
