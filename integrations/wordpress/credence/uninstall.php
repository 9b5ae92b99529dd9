<?php
/**
 * Removes everything the plugin stored: its options, its post and user meta, its cached views and its schedule.
 *
 * @package Credence
 */

defined( 'WP_UNINSTALL_PLUGIN' ) || exit;

foreach ( array( 'credence_service_url', 'credence_api_key', 'credence_webhook_secret', 'credence_post_types', 'credence_topic_map', 'credence_auto_embed', 'credence_connection', 'credence_queue', 'credence_import_cursor', 'credence_publisher' ) as $credence_option ) {
	delete_option( $credence_option );
}
foreach ( array( '_credence_page_id', '_credence_registered_at', '_credence_authors', '_credence_error', '_credence_last_event' ) as $credence_meta ) {
	delete_post_meta_by_key( $credence_meta );
}
delete_metadata( 'user', 0, 'credence_username', '', true );
delete_metadata( 'user', 0, 'credence_link', '', true );
global $wpdb;
$wpdb->query( "DELETE FROM {$wpdb->options} WHERE option_name LIKE '\\_transient\\_credence\\_%' OR option_name LIKE '\\_transient\\_timeout\\_credence\\_%' OR option_name LIKE 'credence\\_seen\\_%'" ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
wp_clear_scheduled_hook( 'credence_retry_queue' );
