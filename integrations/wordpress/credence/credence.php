<?php
/**
 * Plugin Name:       Credence
 * Plugin URI:        https://credence.example/docs/wordpress
 * Description:       Registers your posts with Credence, shows who wrote, reviewed, fact-checked and corrected them, and brings Credence's marketplace into the editor.
 * Version:           0.1.0
 * Requires at least: 6.1
 * Requires PHP:      8.1
 * Author:            Credence
 * License:           GPL-2.0-or-later
 * License URI:       https://www.gnu.org/licenses/gpl-2.0.html
 * Text Domain:       credence
 * Domain Path:       /languages
 *
 * @package Credence
 */

defined( 'ABSPATH' ) || exit;

define( 'CREDENCE_VERSION', '0.1.0' );
define( 'CREDENCE_FILE', __FILE__ );
define( 'CREDENCE_DIR', plugin_dir_path( __FILE__ ) );

require_once CREDENCE_DIR . 'includes/class-credence-signature.php';
require_once CREDENCE_DIR . 'includes/class-credence-client.php';
require_once CREDENCE_DIR . 'includes/class-credence-registration.php';
require_once CREDENCE_DIR . 'includes/class-credence-links.php';
require_once CREDENCE_DIR . 'includes/class-credence-front.php';
require_once CREDENCE_DIR . 'includes/class-credence-webhook.php';
require_once CREDENCE_DIR . 'includes/class-credence-admin.php';

add_filter( 'cron_schedules', array( 'Credence_Registration', 'schedules' ) ); // phpcs:ignore WordPress.WP.CronInterval.CronSchedulesInterval
add_action(
	'init',
	static function () {
		load_plugin_textdomain( 'credence', false, dirname( plugin_basename( CREDENCE_FILE ) ) . '/languages' );
	},
	0
);
Credence_Registration::init();
Credence_Links::init();
Credence_Front::init();
Credence_Webhook::init();
// A key saved anywhere (the settings page, WP-CLI, a deploy script) is tested at once with whoami.
add_action( 'update_option_credence_api_key', array( 'Credence_Admin', 'test_key' ) );
add_action( 'add_option_credence_api_key', array( 'Credence_Admin', 'test_key' ) );
add_action( 'update_option_credence_service_url', array( 'Credence_Admin', 'test_key' ) );
add_action( 'add_option_credence_service_url', array( 'Credence_Admin', 'test_key' ) );
if ( is_admin() ) {
	Credence_Admin::init();
}

register_deactivation_hook(
	__FILE__,
	static function () {
		wp_clear_scheduled_hook( Credence_Registration::CRON );
	}
);
