<?php
/**
 * The REST route Credence's webhooks come to: POST /wp-json/credence/v1/webhook. The signature is the route's
 * authentication; a bad or stale one is refused before the body is read as JSON, and a delivery seen before is not
 * acted on again (a replayed request is refused with 409).
 *
 * @package Credence
 */

defined( 'ABSPATH' ) || exit;

final class Credence_Webhook {
	public static function init() {
		add_action( 'rest_api_init', array( __CLASS__, 'routes' ) );
	}

	public static function routes() {
		register_rest_route(
			'credence/v1',
			'/webhook',
			array(
				'methods'             => 'POST',
				'callback'            => array( __CLASS__, 'receive' ),
				// Anyone may knock; only a delivery signed with the site's secret gets past receive().
				'permission_callback' => '__return_true',
			)
		);
	}

	public static function receive( WP_REST_Request $request ) {
		$verdict = Credence_Signature::check(
			(string) get_option( 'credence_webhook_secret', '' ),
			$request->get_body(),
			(string) $request->get_header( 'x_service_timestamp' ),
			array( (string) $request->get_header( 'x_service_signature' ), (string) $request->get_header( 'x_service_signature_previous' ) ),
			time()
		);
		if ( 'ok' !== $verdict ) {
			$message = 'stale' === $verdict ? __( 'The delivery’s timestamp is more than five minutes from this site’s clock.', 'credence' ) : __( 'The delivery’s signature does not match this site’s webhook secret.', 'credence' );
			return new WP_Error( 'credence_bad_signature', $message, array( 'status' => 401 ) );
		}
		$event     = json_decode( $request->get_body(), true );
		$timestamp = (int) $request->get_header( 'x_service_timestamp' );
		// The delivery id from the signed body (X-Service-Delivery is not signed, so a replay could change it).
		$delivery = is_array( $event ) && isset( $event['id'] ) && is_scalar( $event['id'] ) ? (string) $event['id'] : 'body:' . hash( 'sha256', $request->get_body() );
		$seen     = self::first_sight( $delivery, $timestamp, time() );
		if ( 'replay' === $seen ) {
			return new WP_Error( 'credence_replayed_delivery', __( 'This delivery was received already: a request sent again is refused.', 'credence' ), array( 'status' => 409 ) );
		}
		if ( 'retry' === $seen ) {
			// Credence sent it again (a new timestamp, so a new signature) because our first answer did not reach it:
			// acknowledge it, or it keeps retrying and holds back every later event, but do nothing twice.
			return new WP_REST_Response( array( 'received' => true, 'duplicate' => true, 'post' => 0 ), 200 );
		}
		$page    = is_array( $event ) ? ( $event['data']['page'] ?? null ) : null;
		$post_id = is_array( $page ) ? self::post_for( $page ) : 0;
		if ( $post_id ) {
			self::refresh( $post_id, $event );
		}
		do_action( 'credence_webhook', $event, $post_id );
		return new WP_REST_Response( array( 'received' => true, 'post' => $post_id ), 200 );
	}

	/**
	 * Whether a delivery id is new: 'new' (kept now), 'replay' (the same signed request seen before) or 'retry' (the
	 * same id signed again at another time: Credence sending it once more). Ids are kept as long as a request
	 * signed with their timestamp would pass the five-minute check, each as an option row written with INSERT
	 * IGNORE: the options table's unique name makes two copies arriving at once see one win, which
	 * get_option/add_option (a read, then a write) would not.
	 */
	public static function first_sight( $delivery, $timestamp, $now ) {
		global $wpdb;
		$name = 'credence_seen_' . md5( (string) $delivery );
		// phpcs:disable WordPress.DB.DirectDatabaseQuery
		$wpdb->query( $wpdb->prepare( "DELETE FROM {$wpdb->options} WHERE option_name LIKE %s AND CAST(option_value AS SIGNED) < %d", $wpdb->esc_like( 'credence_seen_' ) . '%', $now - Credence_Signature::TOLERANCE - 60 ) );
		$added = $wpdb->query( $wpdb->prepare( "INSERT IGNORE INTO {$wpdb->options} (option_name, option_value, autoload) VALUES (%s, %s, 'no')", $name, (string) (int) $timestamp ) );
		if ( 1 === (int) $added ) {
			return 'new';
		}
		$stored = (string) $wpdb->get_var( $wpdb->prepare( "SELECT option_value FROM {$wpdb->options} WHERE option_name = %s", $name ) );
		if ( $stored === (string) (int) $timestamp ) {
			return 'replay';
		}
		$wpdb->update( $wpdb->options, array( 'option_value' => (string) (int) $timestamp ), array( 'option_name' => $name ) );
		// phpcs:enable WordPress.DB.DirectDatabaseQuery
		return 'retry';
	}

	/** The post a page names: by the page id we stored at registration, else by its URL. */
	public static function post_for( array $page ) {
		if ( ! empty( $page['id'] ) ) {
			$found = get_posts(
				array(
					'post_type'      => 'any',
					'post_status'    => 'any',
					'meta_key'       => '_credence_page_id', // phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_meta_key
					'meta_value'     => (int) $page['id'], // phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_meta_value
					'fields'         => 'ids',
					'posts_per_page' => 1,
				)
			);
			if ( $found ) {
				return (int) $found[0];
			}
		}
		return empty( $page['url'] ) ? 0 : (int) url_to_postid( (string) $page['url'] );
	}

	/** Readers see the change at once: our cached view, WordPress's post cache, and any page cache, cleared. */
	public static function refresh( $post_id, $event ) {
		Credence_Front::forget( $post_id );
		clean_post_cache( $post_id );
		update_post_meta( $post_id, '_credence_last_event', array( 'event' => (string) ( $event['event'] ?? '' ), 'at' => time() ) );
		// Page-cache plugins listen here (and to the well-known hooks below when they are installed).
		do_action( 'credence_purge_post', $post_id, get_permalink( $post_id ) );
		if ( function_exists( 'wp_cache_post_change' ) ) {
			wp_cache_post_change( $post_id ); // WP Super Cache.
		}
		do_action( 'litespeed_purge_post', $post_id );
		if ( function_exists( 'rocket_clean_post' ) ) {
			rocket_clean_post( $post_id ); // WP Rocket.
		}
	}
}
